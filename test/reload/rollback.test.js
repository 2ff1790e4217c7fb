// A broken new version never replaces working workers: the reload stops, the failed
// replacement is killed, the old workers keep serving (under load, 0 failed requests),
// and the failure is reported with the replacement's stderr.
import test from 'node:test';
import assert from 'node:assert/strict';
import { sandbox, freePort, httpGet, lsJson, alive, watchEvents } from '../helpers/harness.js';
import { startLoad } from '../helpers/load.js';

// listen_timeout is short only where the test waits for it (a version that never
// listens); elsewhere a slow machine's boot must not count as a failure.
const eco = (port, { version, boot = '', extra = '', listenTimeout = '8s', probation = '800ms' }) => `
apps:
  - name: web
    script: versioned.cjs
    instances: 2
    listen_timeout: ${listenTimeout}
    probation: ${probation}
    env: { PORT: ${port}, VERSION: ${version}, BOOT: "${boot}" }
${extra}`;

const cases = [
  { boot: 'throw', reason: /exited with code 1/, stderr: /boom: v2 cannot start/ },
  { boot: 'never-listen', reason: /not ready within listen_timeout \(1500 ms, ready_on: listen\)/, v2: { listenTimeout: '1500ms' } },
  { boot: 'exit-100ms', reason: /exited with code 3/ },
  // probation ten times the 200 ms: the crash falls inside it however slowly the worker runs
  { boot: 'crash-200ms', reason: /exited with code 4 during probation/, v2: { probation: '2s' } },
];

for (const c of cases) {
  test(`a new version that ${c.boot === 'throw' ? 'throws at startup' : c.boot} is rolled back`, async (t) => {
    const box = await sandbox(t);
    const port = await freePort();
    box.fixture('versioned.cjs');
    const file = box.write('eco.yml', eco(port, { version: 'v1' }));
    await box.start(file);
    const before = (await lsJson(box)).apps[0].workers.map((w) => w.pid);

    const load = startLoad({ port, connections: 6, keepAlive: true, maxRequests: 200000, maxMs: 60000 });
    t.after(() => load.stop());
    box.write('eco.yml', eco(port, { version: 'v2', boot: c.boot, ...c.v2 }));
    const r = await box.cli(['reload', 'web']);
    const res = await load.stop();

    assert.equal(r.code, 1, r.stdout + r.stderr);
    assert.match(r.stderr, /^super: E_RELOAD_FAILED: web#0 /m);
    assert.match(r.stderr, c.reason);
    assert.match(r.stderr, /slots 0, 1 still run the old version/);
    // Two workers share the app's stderr file (merge_logs): its lines carry no slot.
    if (c.stderr) assert.match(r.stderr, new RegExp(`^  web \\| .*${c.stderr.source}`, 'm'));
    assert.equal(res.failed, 0, `failed requests: ${JSON.stringify(res.errors)}`);
    assert.equal(res.non2xx, 0);

    const ls = await lsJson(box);
    assert.deepEqual(ls.apps[0].workers.map((w) => w.pid), before, 'the old workers still serve');
    assert.equal(ls.apps[0].status, 'online');
    assert.equal(ls.apps[0].last_reload.ok, false);
    assert.equal(ls.apps[0].last_reload.failed.slot, 0);
    assert.match((await httpGet(port)).body, /^v1 /);
    const text = await box.cli(['ls']);
    assert.match(text.stdout, /web: last reload failed/);
  });
}

test('a failure after some slots were replaced keeps their new workers and says so', async (t) => {
  const box = await sandbox(t);
  const port = await freePort();
  box.fixture('versioned.cjs');
  const file = box.write('eco.yml', eco(port, { version: 'v1' }));
  await box.start(file);
  // Slot 1's replacement fails: its instance number selects the crash.
  box.write('eco.yml', eco(port, { version: 'v2', extra: '    instance_var: SLOT_FOR_TEST' }).replace('script: versioned.cjs', 'script: crash-on-slot-1.cjs'));
  box.write('crash-on-slot-1.cjs', "if (process.env.SLOT_FOR_TEST === '1') throw new Error('slot 1 is broken'); require('./versioned.cjs');\n");
  const r = await box.cli(['reload', 'web']);
  assert.equal(r.code, 1);
  assert.match(r.stderr, /E_RELOAD_FAILED: web#1 exited with code 1/);
  assert.match(r.stderr, /slot 1 still runs the old version; slot 0 already runs the new one/);
  assert.match(r.stdout, /web: slot 1\/2 ready \(\d+ ms; web#0,/);
  const ls = await lsJson(box);
  assert.deepEqual(ls.apps[0].workers.map((w) => w.status), ['online', 'online']);
  assert.deepEqual(ls.apps[0].last_reload.replaced, [0]);
});

test('a retiring worker that ignores shutdown is SIGKILLed after kill_timeout', async (t) => {
  const box = await sandbox(t);
  const port = await freePort();
  box.fixture('versioned.cjs');
  const stubborn = (version) => `
apps:
  - name: web
    script: versioned.cjs
    instances: 1
    probation: 0
    kill_timeout: 700ms
    env: { PORT: ${port}, VERSION: ${version}, IGNORE_SIGNALS: "1" }
`;
  const file = box.write('eco.yml', stubborn('v1'));
  await box.start(file);
  const [old] = (await lsJson(box)).apps[0].workers.map((w) => w.pid);
  box.write('eco.yml', stubborn('v2'));
  const t0 = Date.now();
  const r = await box.cli(['reload', 'web']);
  assert.equal(r.code, 0, r.stderr);
  assert.ok(Date.now() - t0 >= 700, 'the reload waited kill_timeout for the old worker');
  assert.equal(alive(old), false);
  const log = (await import('node:fs')).readFileSync(`${box.home}/daemon.log`, 'utf8');
  assert.match(log, new RegExp(`"step":"retired","pid":${old},"code":null,"signal":"SIGKILL"`));
});

test('an errored (crash-looping) app is brought back by reloading a fixed version', async (t) => {
  const box = await sandbox(t);
  const port = await freePort();
  box.fixture('versioned.cjs');
  // It listens, so the start succeeds (a start that fails is rolled back), then exits each time.
  const file = box.write('eco.yml', eco(port, { version: 'v1', boot: 'crash-200ms', extra: '    max_restarts: 2\n    min_uptime: 5s' }));
  const start = await box.cli(['start', file]);
  assert.equal(start.code, 0, start.stderr);
  // Subscribed before looking, so the end of the loop is seen whether it came before or after.
  const events = await watchEvents(box, t);
  const errored = (await lsJson(box)).apps[0].workers.some((w) => w.status === 'errored');
  if (!errored) await events.waitFor((e) => e.state === 'errored', 30000, 'the crash loop to end errored');
  box.write('eco.yml', eco(port, { version: 'v2', extra: '    max_restarts: 2\n    min_uptime: 5s' }));
  const r = await box.cli(['reload', 'web']);
  assert.equal(r.code, 0, r.stderr);
  const ls = await lsJson(box);
  assert.deepEqual(ls.apps[0].workers.map((w) => w.status), ['online', 'online']);
  assert.match((await httpGet(port)).body, /^v2 /);
});
