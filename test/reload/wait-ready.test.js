// wait_ready during a reload: the old worker serves until the replacement calls ready(),
// and under round-robin the replacement gets no connection before it (docs/ecosystem.md's
// promise), even from clients that open a new connection per request; so does a crash
// restart beside a ready worker.
import test from 'node:test';
import assert from 'node:assert/strict';
import path from 'node:path';
import { sandbox, freePort, lsJson, watchEvents, FIXTURES } from '../helpers/harness.js';
import { startLoad } from '../helpers/load.js';

// The replacement warms up this long after listening; it answers 503 meanwhile.
const WARM_MS = 1000;
// The load must run while a replacement starts and warms up, or "no 503" proves nothing:
// at least this many requests between its fork (or the crash) and its ready().
const MIN_DURING_WARMUP = 20;

const eco = (port, version) => `
apps:
  - name: warm
    script: versioned.cjs
    instances: 2
    wait_ready: true
    probation: 200ms
    env: { PORT: ${port}, VERSION: ${version}, WAIT_READY_MS: ${WARM_MS} }
`;

for (const keepAlive of [false, true]) {
  test(`wait_ready: no request reaches a replacement before ready() (${keepAlive ? 'keep-alive' : 'new connection per request'})`, async (t) => {
    const box = await sandbox(t);
    const port = await freePort();
    box.fixture('versioned.cjs');
    const file = box.write('eco.yml', eco(port, 'v1'));
    await box.start(file);
    const [old0] = (await lsJson(box)).apps[0].workers.map((w) => w.pid);
    const events = await watchEvents(box, t, ['reload', 'worker']);

    const load = startLoad({ port, connections: 6, keepAlive, maxRequests: 200000, maxMs: 60000 });
    t.after(() => load.stop());
    box.write('eco.yml', eco(port, 'v2'));
    const reload = box.cli(['reload', 'warm']);
    const forked = await events.waitFor((e) => e.step === 'forked' && e.slot === 0, 30000, 'slot 0 replacement forked');
    const sentAtFork = load.stats.sent;
    const ready = await events.waitFor((e) => e.step === 'ready' && e.slot === 0, 30000, 'slot 0 replacement ready');
    const duringWarmup = load.stats.sent - sentAtFork;
    assert.equal(forked.oldPid, old0);
    assert.ok(ready.ready_ms >= WARM_MS, `ready only after ready() (${ready.ready_ms} ms)`);
    const r = await reload;
    const res = await load.stop();
    assert.equal(r.code, 0, r.stderr);
    assert.ok(duringWarmup >= MIN_DURING_WARMUP, `the load ran while slot 0 warmed up (${duringWarmup} of ${res.sent} requests)`);
    assert.equal(res.non2xx, 0, `answers before ready(): ${JSON.stringify(res.statuses)}`);
    assert.equal(res.failed, 0, JSON.stringify(res.errors));
  });
}

test('wait_ready: a crash restart beside a ready worker gets no request before ready()', async (t) => {
  const box = await sandbox(t);
  const port = await freePort();
  box.fixture('versioned.cjs');
  const file = box.write('eco.yml', eco(port, 'v1'));
  await box.start(file);
  const [old0] = (await lsJson(box)).apps[0].workers.map((w) => w.pid);
  const events = await watchEvents(box, t, ['worker']);

  // A new connection per request: every request goes through the daemon's round-robin.
  const load = startLoad({ port, connections: 4, keepAlive: false, maxRequests: 200000, maxMs: 60000 });
  t.after(() => load.stop());
  const sentAtKill = load.stats.sent;
  process.kill(old0, 'SIGKILL');
  const online = await events.waitFor((e) => e.slot === 0 && e.state === 'online' && e.pid !== old0, 30000, 'slot 0 restarted');
  const duringWarmup = load.stats.sent - sentAtKill;
  assert.ok(online.ready_ms >= WARM_MS, `ready only after ready() (${online.ready_ms} ms)`);
  const res = await load.stop();
  assert.ok(duringWarmup >= MIN_DURING_WARMUP, `the load ran while slot 0 restarted (${duringWarmup} of ${res.sent} requests)`);
  // 503 is what the restarted worker answers before ready(): none may reach a client.
  assert.equal(res.non2xx, 0, `answers before ready(): ${JSON.stringify(res.statuses)}`);
  // Requests in flight on the SIGKILLed worker may fail; nothing else.
  assert.ok(res.failed <= 4, JSON.stringify(res.errors));
});

test('wait_ready: a reload waits for ready() from superd/worker', async (t) => {
  const box = await sandbox(t);
  const port = await freePort();
  // ready-api imports superd/worker, which resolves from inside this package: run it in place.
  const script = path.join(FIXTURES, 'apps', 'ready-api.js');
  const file = box.write('eco.yml', `
apps:
  - name: api
    script: ${script}
    instances: 2
    wait_ready: true
    probation: 200ms
    env: { PORT: ${port}, WARMUP_MS: 800 }
`);
  await box.start(file);
  const events = await watchEvents(box, t, ['reload']);
  const load = startLoad({ port, connections: 4, keepAlive: false, maxRequests: 200000, maxMs: 60000 });
  t.after(() => load.stop());
  const r = await box.cli(['reload', 'api']);
  const res = await load.stop();
  assert.equal(r.code, 0, r.stderr);
  for (const slot of [0, 1]) {
    const ready = await events.waitFor((e) => e.step === 'ready' && e.slot === slot, 1000, `slot ${slot} ready`);
    assert.ok(ready.ready_ms >= 800, `slot ${slot} ready only after ready() (${ready.ready_ms} ms)`);
  }
  assert.equal(res.failed + res.non2xx, 0, JSON.stringify(res));
});
