// wait_ready during a reload: the old worker serves until the replacement calls ready(),
// and under round-robin the replacement gets no connection before it (docs/ecosystem.md's
// promise), even from clients that open a new connection per request; so does a crash
// restart beside a ready worker. One daemon for the file: each test adds its own app (own
// name, port and file) and deletes it at its end.
import test from 'node:test';
import assert from 'node:assert/strict';
import path from 'node:path';
import { freePort, lsJson, watchEvents, FIXTURES } from '../helpers/harness.js';
import { fileSandbox, deleteAtEnd } from '../helpers/file-daemon.js';
import { startLoad } from '../helpers/load.js';

// The replacement warms up this long after listening; it answers 503 meanwhile.
const WARM_MS = 1000;
// The load must run while a replacement starts and warms up, or "no 503" proves nothing:
// at least this many requests between its fork (or the crash) and its ready().
const MIN_DURING_WARMUP = 20;

const eco = (name, port, version, instances) => `
apps:
  - name: ${name}
    script: versioned.cjs
    instances: ${instances}
    wait_ready: true
    probation: 200ms
    env: { PORT: ${port}, VERSION: ${version}, WAIT_READY_MS: ${WARM_MS} }
`;

const box = await fileSandbox();
box.fixture('versioned.cjs');

/** Starts app `name` (v1) from its own file, deleted when `t` ends; resolves with its first worker's pid and a setVersion. */
async function setup(t, name, instances) {
  const port = await freePort();
  const file = box.write(`${name}.yml`, eco(name, port, 'v1', instances));
  deleteAtEnd(t, box, [name]);
  await box.start(file);
  const [old0] = (await lsJson(box)).apps.find((a) => a.name === name).workers.map((w) => w.pid);
  return { port, old0, setVersion: (v) => box.write(`${name}.yml`, eco(name, port, v, instances)) };
}

/** Reloads `name` over the control socket; resolves with its outcome. */
async function reload(t, name) {
  const client = await box.client();
  t.after(() => client.close());
  return (await client.request('reload', { target: [name] }, { timeout: 0 })).apps[0];
}

// One worker: the old one serves while its replacement warms up.
for (const keepAlive of [false, true]) {
  test(`wait_ready: no request reaches a replacement before ready() (${keepAlive ? 'keep-alive' : 'new connection per request'})`, async (t) => {
    const name = keepAlive ? 'ka' : 'close';
    const { port, old0, setVersion } = await setup(t, name, 1);
    const events = await watchEvents(box, t, ['reload', 'worker']);

    const load = startLoad({ port, connections: 4, keepAlive, maxRequests: 200000, maxMs: 60000 });
    t.after(() => load.stop());
    setVersion('v2');
    const reloaded = reload(t, name);
    const forked = await events.waitFor((e) => e.app === name && e.step === 'forked' && e.slot === 0, 30000, 'slot 0 replacement forked');
    const sentAtFork = load.stats.sent;
    const ready = await events.waitFor((e) => e.app === name && e.step === 'ready' && e.slot === 0, 30000, 'slot 0 replacement ready');
    const duringWarmup = load.stats.sent - sentAtFork;
    assert.equal(forked.oldPid, old0);
    assert.ok(ready.ready_ms >= WARM_MS, `ready only after ready() (${ready.ready_ms} ms)`);
    const r = await reloaded;
    const res = await load.stop();
    assert.equal(r.ok, true, JSON.stringify(r));
    assert.ok(duringWarmup >= MIN_DURING_WARMUP, `the load ran while slot 0 warmed up (${duringWarmup} of ${res.sent} requests)`);
    assert.equal(res.non2xx, 0, `answers before ready(): ${JSON.stringify(res.statuses)}`);
    assert.equal(res.failed, 0, JSON.stringify(res.errors));
  });
}

test('wait_ready: a crash restart beside a ready worker gets no request before ready()', async (t) => {
  const { port, old0 } = await setup(t, 'crash', 2);
  const events = await watchEvents(box, t, ['worker']);

  // A new connection per request: every request goes through the daemon's round-robin.
  const load = startLoad({ port, connections: 4, keepAlive: false, maxRequests: 200000, maxMs: 60000 });
  t.after(() => load.stop());
  const sentAtKill = load.stats.sent;
  process.kill(old0, 'SIGKILL');
  const online = await events.waitFor((e) => e.app === 'crash' && e.slot === 0 && e.state === 'online' && e.pid !== old0, 30000, 'slot 0 restarted');
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
  const port = await freePort();
  // ready-api imports superd/worker, which resolves from inside this package: run it in place.
  const script = path.join(FIXTURES, 'apps', 'ready-api.js');
  const file = box.write('api.yml', `
apps:
  - name: api
    script: ${script}
    instances: 1
    wait_ready: true
    probation: 200ms
    env: { PORT: ${port}, WARMUP_MS: 800 }
`);
  deleteAtEnd(t, box, ['api']);
  await box.start(file);
  const events = await watchEvents(box, t, ['reload']);
  const load = startLoad({ port, connections: 4, keepAlive: false, maxRequests: 200000, maxMs: 60000 });
  t.after(() => load.stop());
  const r = await reload(t, 'api');
  const res = await load.stop();
  assert.equal(r.ok, true, JSON.stringify(r));
  const ready = await events.waitFor((e) => e.app === 'api' && e.step === 'ready' && e.slot === 0, 1000, 'slot 0 ready');
  assert.ok(ready.ready_ms >= 800, `ready only after ready() (${ready.ready_ms} ms)`);
  assert.equal(res.failed + res.non2xx, 0, JSON.stringify(res));
});
