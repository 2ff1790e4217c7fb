// When `start` considers a worker ready: listening (default), ready() / process.send('ready')
// with wait_ready, alive for min_uptime with ready_on: spawn; and what it says when never.
import test from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { sandbox, freePort, httpGet, lsJson, FIXTURES, describeJson } from '../helpers/harness.js';

test('wait_ready: start returns after ready() (superd/worker) and process.send("ready")', async (t) => {
  const box = await sandbox(t);
  const [p1, p2] = [await freePort(), await freePort()];
  // ready-api imports superd/worker, which resolves from inside this package: run it in place.
  const script = path.join(FIXTURES, 'apps', 'ready-api.js');
  box.fixture('ready-pm2.cjs');
  const eco = box.write('eco.yml', `
apps:
  - name: api
    script: ${script}
    instances: 2
    wait_ready: true
    env: { PORT: ${p1}, WARMUP_MS: 400 }
  - name: pm2
    script: ready-pm2.cjs
    wait_ready: true
    env: { PORT: ${p2} }
`);
  const started = Date.now();
  await box.start(eco);
  assert.ok(Date.now() - started >= 400, 'start waited for the warm-up');
  assert.match((await httpGet(p1)).body, /^ready-api slot=[01] superd=true$/);
  assert.equal((await httpGet(p2)).body, 'pm2-style');
  assert.deepEqual((await lsJson(box)).apps.map((a) => a.status), ['online', 'online']);
});

test('a worker that never becomes ready is reported, kept, and flagged', async (t) => {
  const box = await sandbox(t);
  box.fixture('idle.js');
  const eco = box.write('eco.yml', 'apps:\n  - name: quiet\n    script: idle.js\n    listen_timeout: 600ms\n');
  const r = await box.cli(['start', eco]);
  assert.equal(r.code, 0, r.stderr);
  assert.match(r.stderr, /super: warning: quiet#0 did not become ready within listen_timeout \(600 ms, ready_on: listen\); it is kept running\. Apps that never listen need ready_on: spawn\./);
  const d = await describeJson(box, 'quiet');
  assert.equal(d.workers[0].status, 'online');
  assert.equal(d.workers[0].not_ready, true);
});

test('ready_on: spawn: ready once alive for min_uptime', async (t) => {
  const box = await sandbox(t);
  box.fixture('idle.js');
  const eco = box.write('eco.yml', 'apps:\n  - name: bg\n    script: idle.js\n    ready_on: spawn\n    min_uptime: 500ms\n');
  const started = Date.now();
  const r = await box.cli(['start', eco]);
  assert.equal(r.code, 0, r.stderr);
  assert.equal(r.stderr, '');
  assert.ok(Date.now() - started >= 500);
  assert.equal((await lsJson(box)).apps[0].workers[0].status, 'online');
  assert.ok(fs.existsSync(path.join(box.home, 'logs', 'bg-out.log')));
});
