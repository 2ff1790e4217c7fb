// Workers that stay up: crash replacement in the same slot, crash loops, exit policies.
import test from 'node:test';
import assert from 'node:assert/strict';
import { sandbox, freePort, httpGet, lsJson, watchEvents, describeJson } from '../helpers/harness.js';

test('kill -9 of a worker: replaced in the same slot, serving again', async (t) => {
  const box = await sandbox(t);
  const port = await freePort();
  box.fixture('http-server.js');
  const eco = box.write('eco.yml', `apps:\n  - name: web\n    script: http-server.js\n    instances: 2\n    env: { PORT: ${port} }\n`);
  await box.start(eco);
  const ev = await watchEvents(box, t);
  const before = (await lsJson(box)).apps[0].workers;
  process.kill(before[1].pid, 'SIGKILL');
  const exited = await ev.waitFor((e) => e.slot === 1 && e.state === 'exited', 30000, 'slot 1 exited');
  assert.equal(exited.signal, 'SIGKILL');
  const back = await ev.waitFor((e) => e.slot === 1 && e.state === 'online', 30000, 'slot 1 online again');
  assert.notEqual(back.pid, before[1].pid);
  const after = (await lsJson(box)).apps[0].workers;
  assert.deepEqual(after.map((w) => [w.slot, w.status, w.restarts]), [[0, 'online', 0], [1, 'online', 1]]);
  assert.equal(after[0].pid, before[0].pid, 'the other slot was not touched');
  // the replacement has the same slot index in its environment
  const seen = new Set();
  for (let i = 0; i < 40 && seen.size < 2; i++) seen.add((await httpGet(port)).body.match(/slot=(\d)/)[1]); // 40: under reuseport the kernel's hash picks
  assert.deepEqual([...seen].sort(), ['0', '1']);
});

test('a crash loop ends errored with its restart count and exit code', async (t) => {
  const box = await sandbox(t);
  // It listens (ready), then dies well before min_uptime: the start succeeds and the loop is
  // the restart policy's (a worker that dies before its first readiness fails the start,
  // which is rolled back: test/hardening/cli-start.test.js).
  box.write('boom.js', "require('node:net').createServer().listen(0, '127.0.0.1', () => setTimeout(() => { console.error('boom.js: failing on purpose'); process.exit(3); }, 100));\n");
  const eco = box.write('eco.yml', `apps:\n  - name: boom\n    script: boom.js\n    max_restarts: 3\n    min_uptime: 2s\n`);
  const r = await box.cli(['start', eco]);
  assert.equal(r.code, 0, r.stderr);
  const ev = await watchEvents(box, t);
  const errored = await ev.waitFor((e) => e.state === 'errored', 30000, 'errored');
  assert.match(errored.reason, /4 times in a row.*max_restarts is 3/);
  const ls = await lsJson(box);
  assert.equal(ls.apps[0].status, 'errored');
  assert.deepEqual(ls.apps[0].workers.map((w) => [w.status, w.restarts, w.pid]), [['errored', 3, null]]);
  const d = await describeJson(box, 'boom');
  assert.equal(d.workers[0].last_exit.code, 3);
  assert.match(d.last_stderr, /failing on purpose/);
});

test('autorestart: false and stop_exit_codes leave the worker stopped', async (t) => {
  const box = await sandbox(t);
  box.write('exit0.js', 'setTimeout(() => process.exit(0), 1500);');
  box.write('exit7.js', 'setTimeout(() => process.exit(7), 1500);');
  const eco = box.write('eco.yml', `
apps:
  - name: once
    script: exit0.js
    ready_on: spawn
    min_uptime: 100ms
    autorestart: false
  - name: seven
    script: exit7.js
    ready_on: spawn
    min_uptime: 100ms
    stop_exit_codes: [7]
`);
  await box.start(eco);
  const w = await watchEvents(box, t);
  const once = await w.waitFor((e) => e.app === 'once' && e.state === 'stopped', 30000, 'once stopped');
  assert.match(once.reason, /autorestart is off/);
  const seven = await w.waitFor((e) => e.app === 'seven' && e.state === 'stopped', 30000, 'seven stopped');
  assert.match(seven.reason, /code 7, listed in stop_exit_codes/);
  const ls = await lsJson(box);
  assert.deepEqual(ls.apps.map((a) => [a.name, a.status, a.workers[0].restarts]), [['once', 'stopped', 0], ['seven', 'stopped', 0]]);
});

test('a worker Node refuses to boot (bad node_args) fails the start with Node\'s message', async (t) => {
  const box = await sandbox(t);
  box.fixture('idle.js');
  const eco = box.write('eco.yml', 'apps:\n  - name: badflag\n    script: idle.js\n    node_args: --definitely-not-a-node-flag\n    max_restarts: 1\n');
  const r = await box.cli(['start', eco]);
  assert.equal(r.code, 1);
  assert.match(r.stderr, /E_START_FAILED: badflag#0 exited with code 9 before it became ready/);
  assert.match(r.stderr, /badflag#0 \| .*bad option: --definitely-not-a-node-flag/);
  assert.equal((await box.cli(['ping'])).code, 0, 'the daemon is fine');
});
