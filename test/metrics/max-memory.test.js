// Issue 4: a worker whose RSS passes max_memory_restart is replaced through the graceful,
// ready-first path, and a client hitting the app all along sees no failed request (one
// worker only: there is no other worker to take the traffic while it is replaced).
import test from 'node:test';
import assert from 'node:assert/strict';
import { sandbox, freePort, httpGet, lsJson } from '../helpers/harness.js';
import { waitForLog } from '../helpers/metrics.js';

/** Replacement steps (topic "reload": forked, ready, retired) as they come. */
async function watchReplacements(box, t) {
  const client = await box.client();
  const seen = [];
  const waiters = new Set();
  client.onEvent((e) => {
    if (e.event !== 'reload') return;
    seen.push(e.data);
    for (const w of waiters) w(e.data);
  });
  await client.request('subscribe', { topics: ['reload'] });
  t.after(() => client.close());
  return (pred, what) => new Promise((resolve, reject) => {
    const hit = seen.find(pred);
    if (hit) return resolve(hit);
    const timer = setTimeout(() => reject(new Error(`timed out waiting for ${what}; saw ${JSON.stringify(seen)}`)), 20000);
    const w = (d) => {
      if (!pred(d)) return;
      clearTimeout(timer);
      waiters.delete(w);
      resolve(d);
    };
    waiters.add(w);
    return undefined;
  });
}

test('max_memory_restart: the worker that grows past the limit is replaced, no request fails', async (t) => {
  const box = await sandbox(t);
  const port = await freePort();
  box.fixture('loop-lab.js');
  const eco = box.write('eco.yml', `metrics: { interval: 200ms }\napps:\n  - name: fat\n    script: loop-lab.js\n    instances: 1\n    max_memory_restart: 150M\n    env: { PORT: ${port} }\n`);
  await box.start(eco);
  const waitStep = await watchReplacements(box, t);
  const before = (await lsJson(box)).apps[0].workers;
  assert.ok(before[0].memory < 150 * 1048576, 'it starts under the limit');

  // A client loop on fresh connections for the whole replacement.
  let stop = false;
  t.after(() => { stop = true; });
  let ok = 0;
  const failures = [];
  const loop = (async () => {
    while (!stop) {
      try {
        const r = await httpGet(port, '/');
        if (r.status === 200) ok++;
        else failures.push(`status ${r.status}`);
      } catch (err) {
        failures.push(err.code ?? err.message);
      }
    }
  })();

  // Grow one worker by 200 MiB (the request answers before the sample sees it).
  const grown = await httpGet(port, '/grow?mb=200');
  const victim = Number(/pid=(\d+)/.exec(grown.body)[1]);
  assert.equal(victim, before[0].pid);
  const slot = 0;
  const fresh = await waitStep((e) => e.step === 'ready' && e.slot === slot && e.oldPid === victim, 'a ready replacement');
  assert.match(fresh.reason, /^max_memory_restart: memory \d+\.\d MiB is above max_memory_restart \(150\.0 MiB\)$/);
  const gone = await waitStep((e) => e.step === 'retired' && e.pid === victim, 'the grown worker retired');
  assert.notEqual(fresh.pid, victim);
  const okAtReplace = ok;
  while (ok < okAtReplace + 20 && !failures.length) await new Promise((r) => setTimeout(r, 10)); // a little more load after
  stop = true;
  await loop;
  assert.deepEqual(failures, [], `no failed request (${ok} ok)`);
  assert.ok(gone);

  const after = (await lsJson(box)).apps[0].workers;
  assert.deepEqual(after.map((w) => [w.slot, w.status, w.pid]), [[0, 'online', fresh.pid]]);
  assert.equal(after[0].restarts, 1, 'a replacement for memory counts as a restart (as PM2 counts it)');
  assert.ok(after[0].memory < 150 * 1048576, 'the replacement is under the limit');
  const log = await waitForLog(box, /fat#0 replaced/);
  assert.match(log, /fat#0 memory \d+\.\d MiB is above max_memory_restart \(150\.0 MiB\); replacing it \(ready-first\)/);
});
