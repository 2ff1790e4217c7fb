// Issue 4: a worker whose RSS passes max_memory_restart is replaced through the graceful,
// ready-first path, and a client hitting the app all along sees no failed request.
import test from 'node:test';
import assert from 'node:assert/strict';
import { sandbox, freePort, httpGet, lsJson, watchEvents } from '../helpers/harness.js';
import { waitForLog } from '../helpers/metrics.js';

test('max_memory_restart: the worker that grows past the limit is replaced, no request fails', async (t) => {
  const box = await sandbox(t);
  const port = await freePort();
  box.fixture('loop-lab.js');
  const eco = box.write('eco.yml', `metrics: { interval: 200ms }\napps:\n  - name: fat\n    script: loop-lab.js\n    instances: 2\n    max_memory_restart: 150M\n    env: { PORT: ${port} }\n`);
  assert.equal((await box.cli(['start', eco])).code, 0);
  const ev = await watchEvents(box, t);
  const before = (await lsJson(box)).apps[0].workers;
  assert.ok(before.every((w) => w.memory < 150 * 1048576), 'both start under the limit');

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
  const slot = before.find((w) => w.pid === victim).slot;
  const gone = await ev.waitFor((e) => e.pid === victim && e.state === 'stopping', 20000, 'the grown worker retired');
  const fresh = await ev.waitFor((e) => e.slot === slot && e.state === 'online' && e.pid !== victim, 20000, 'a new worker in its slot');
  assert.notEqual(fresh.pid, victim);
  const okAtReplace = ok;
  while (ok < okAtReplace + 20 && !failures.length) await new Promise((r) => setTimeout(r, 10)); // a little more load after
  stop = true;
  await loop;
  assert.deepEqual(failures, [], `no failed request (${ok} ok)`);
  assert.ok(gone);

  const after = (await lsJson(box)).apps[0].workers;
  assert.equal(after.length, 2);
  assert.ok(after.every((w) => w.status === 'online' && w.pid !== victim));
  assert.equal(after.find((w) => w.slot !== slot).pid, before.find((w) => w.slot !== slot).pid, 'the other worker was not touched');
  await waitForLog(box, /max_memory_restart/);
});
