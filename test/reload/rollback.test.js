// A broken new version never replaces working workers: the reload stops, the failed
// replacement is killed, the old workers keep serving (under load, 0 failed requests),
// and the failure is reported with the replacement's stderr. One daemon for the file: each
// test adds its own app (own name, port and file) and deletes it at its end.
import test from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import { freePort, httpGet, lsJson, alive, watchEvents } from '../helpers/harness.js';
import { fileSandbox, deleteAtEnd } from '../helpers/file-daemon.js';
import { startLoad } from '../helpers/load.js';
import { waitForLog } from '../helpers/metrics.js';

// listen_timeout is short only where the test waits for it (a version that never
// listens); elsewhere a slow machine's boot must not count as a failure.
const eco = (name, port, { version, boot = '', extra = '', listenTimeout = '8s', probation = '800ms', instances = 2 }) => `
apps:
  - name: ${name}
    script: versioned.cjs
    instances: ${instances}
    listen_timeout: ${listenTimeout}
    probation: ${probation}
    env: { PORT: ${port}, VERSION: ${version}, BOOT: "${boot}" }
${extra}`;

const box = await fileSandbox();
box.fixture('versioned.cjs');

/** Starts app `name` (v1) from its own file, deleted when `t` ends; `app()` is its `ls --json` entry. */
async function setup(t, name, opts = {}) {
  const port = await freePort();
  const file = box.write(`${name}.yml`, eco(name, port, { version: 'v1', ...opts }));
  deleteAtEnd(t, box, [name]);
  await box.start(file);
  return { port, file, app: async () => (await lsJson(box)).apps.find((a) => a.name === name) };
}

// Two slots where the test shows the reload stopping at slot 0 with slot 1 untouched (and
// the stderr of two workers sharing a file); one elsewhere: the failure is the same.
const cases = [
  { boot: 'throw', reason: /exited with code 1/, stderr: /boom: v2 cannot start/, instances: 2 },
  { boot: 'never-listen', reason: /not ready within listen_timeout \(1500 ms, ready_on: listen\)/, v2: { listenTimeout: '1500ms' } },
  { boot: 'exit-100ms', reason: /exited with code 3/ },
  // probation ten times the 200 ms: the crash falls inside it however slowly the worker runs
  { boot: 'crash-200ms', reason: /exited with code 4 during probation/, v2: { probation: '2s' } },
];

for (const c of cases) {
  test(`a new version that ${c.boot === 'throw' ? 'throws at startup' : c.boot} is rolled back`, async (t) => {
    const name = c.boot;
    const instances = c.instances ?? 1;
    const { port, file, app } = await setup(t, name, { instances });
    const before = (await app()).workers.map((w) => w.pid);

    const load = startLoad({ port, connections: 4, keepAlive: true, maxRequests: 200000, maxMs: 60000 });
    t.after(() => load.stop());
    fs.writeFileSync(file, eco(name, port, { version: 'v2', boot: c.boot, instances, ...c.v2 }));
    const r = await box.cli(['reload', name]);
    const res = await load.stop();

    assert.equal(r.code, 1, r.stdout + r.stderr);
    assert.match(r.stderr, new RegExp(`^super: E_RELOAD_FAILED: ${name}#0 `, 'm'));
    assert.match(r.stderr, c.reason);
    assert.match(r.stderr, instances === 2 ? /slots 0, 1 still run the old version/ : /slot 0 still runs the old version/);
    // Two workers share the app's stderr file (merge_logs): its lines carry no slot.
    if (c.stderr) assert.match(r.stderr, new RegExp(`^  ${name} \\| .*${c.stderr.source}`, 'm'));
    assert.equal(res.failed, 0, `failed requests: ${JSON.stringify(res.errors)}`);
    assert.equal(res.non2xx, 0);

    const ls = await app();
    assert.deepEqual(ls.workers.map((w) => w.pid), before, 'the old workers still serve');
    assert.equal(ls.status, 'online');
    assert.equal(ls.last_reload.ok, false);
    assert.equal(ls.last_reload.failed.slot, 0);
    assert.match((await httpGet(port)).body, /^v1 /);
    // `super ls` says so (its rendering is the same for every cause: checked once)
    if (c.stderr) assert.match((await box.cli(['ls'])).stdout, new RegExp(`${name}: last reload failed`));
  });
}

test('a failure after some slots were replaced keeps their new workers and says so', async (t) => {
  const { port, file, app } = await setup(t, 'half');
  // Slot 1's replacement fails: its instance number selects the crash.
  fs.writeFileSync(file, eco('half', port, { version: 'v2', extra: '    instance_var: SLOT_FOR_TEST' }).replace('script: versioned.cjs', 'script: crash-on-slot-1.cjs'));
  box.write('crash-on-slot-1.cjs', "if (process.env.SLOT_FOR_TEST === '1') throw new Error('slot 1 is broken'); require('./versioned.cjs');\n");
  const r = await box.cli(['reload', 'half']);
  assert.equal(r.code, 1);
  assert.match(r.stderr, /E_RELOAD_FAILED: half#1 exited with code 1/);
  assert.match(r.stderr, /slot 1 still runs the old version; slot 0 already runs the new one/);
  assert.match(r.stdout, /half: slot 1\/2 ready \(\d+ ms; half#0,/);
  const ls = await app();
  assert.deepEqual(ls.workers.map((w) => w.status), ['online', 'online']);
  assert.deepEqual(ls.last_reload.replaced, [0]);
});

test('a retiring worker that ignores shutdown is SIGKILLed after kill_timeout', async (t) => {
  const port = await freePort();
  const stubborn = (version) => `
apps:
  - name: stubborn
    script: versioned.cjs
    instances: 1
    probation: 0
    kill_timeout: 700ms
    env: { PORT: ${port}, VERSION: ${version}, IGNORE_SIGNALS: "1" }
`;
  const file = box.write('stubborn.yml', stubborn('v1'));
  deleteAtEnd(t, box, ['stubborn']);
  await box.start(file);
  const [old] = (await lsJson(box)).apps.find((a) => a.name === 'stubborn').workers.map((w) => w.pid);
  box.write('stubborn.yml', stubborn('v2'));
  const t0 = Date.now();
  const r = await box.cli(['reload', 'stubborn']);
  assert.equal(r.code, 0, r.stderr);
  assert.ok(Date.now() - t0 >= 700, 'the reload waited kill_timeout for the old worker');
  assert.equal(alive(old), false);
  // The line may reach the file after the reply (the daemon's log writes are asynchronous).
  await waitForLog(box, new RegExp(`"step":"retired","pid":${old},"code":null,"signal":"SIGKILL"`), 10000);
});

test('an errored (crash-looping) app is brought back by reloading a fixed version', async (t) => {
  // Subscribed before the start, so the end of the loop is seen however soon it comes.
  const events = await watchEvents(box, t);
  // It listens, so the start succeeds (a start that fails is rolled back), then exits each time.
  const { port, file, app } = await setup(t, 'looping', { boot: 'crash-200ms', extra: '    max_restarts: 1\n    min_uptime: 5s' });
  await events.waitFor((e) => e.app === 'looping' && e.state === 'errored', 30000, 'the crash loop to end errored');
  fs.writeFileSync(file, eco('looping', port, { version: 'v2', extra: '    max_restarts: 1\n    min_uptime: 5s' }));
  const r = await box.cli(['reload', 'looping']);
  assert.equal(r.code, 0, r.stderr);
  assert.deepEqual((await app()).workers.map((w) => w.status), ['online', 'online']);
  assert.match((await httpGet(port)).body, /^v2 /);
});
