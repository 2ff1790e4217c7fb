// scale up and down: new slots start and serve, the highest slots stop.
import test from 'node:test';
import assert from 'node:assert/strict';
import { sandbox, freePort, httpGet, lsJson, alive } from '../helpers/harness.js';

test('scale up, down, relative, and refusals', async (t) => {
  const box = await sandbox(t);
  const port = await freePort();
  box.fixture('http-server.js');
  const eco = box.write('eco.yml', `apps:\n  - name: web\n    script: http-server.js\n    env: { PORT: ${port} }\n`);
  await box.start(eco);

  let r = await box.cli(['scale', 'web', '4']);
  assert.equal(r.code, 0, r.stderr);
  assert.match(r.stdout, /web: 1 -> 4 instances/);
  let ls = await lsJson(box);
  assert.deepEqual(ls.apps[0].workers.map((w) => [w.slot, w.status]), [[0, 'online'], [1, 'online'], [2, 'online'], [3, 'online']]);
  const seen = new Set();
  for (let i = 0; i < 40 && seen.size < 4; i++) seen.add((await httpGet(port)).body.match(/slot=(\d)/)[1]);
  assert.equal(seen.size, 4, 'all four slots serve');

  const gone = ls.apps[0].workers.slice(2).map((w) => w.pid);
  r = await box.cli(['scale', 'web', '-2']);
  assert.equal(r.code, 0, r.stderr);
  assert.match(r.stdout, /web: 4 -> 2 instances/);
  ls = await lsJson(box);
  assert.deepEqual(ls.apps[0].workers.map((w) => w.slot), [0, 1]);
  assert.equal(ls.apps[0].instances, 2);
  for (const pid of gone) assert.equal(alive(pid), false);

  r = await box.cli(['scale', 'web', '+1']);
  assert.match(r.stdout, /web: 2 -> 3 instances/);

  r = await box.cli(['scale', 'web', '-3']);
  assert.equal(r.code, 2);
  assert.match(r.stderr, /E_USAGE: web cannot have 0 instances/);
  r = await box.cli(['scale', 'web', 'many']);
  assert.equal(r.code, 2);
  r = await box.cli(['scale', 'web', '100000']);
  assert.equal(r.code, 2);
  assert.match(r.stderr, /E_USAGE: web: 100000 instances is more than the limit of 1024/);
  r = await box.cli(['scale', 'nope', '2']);
  assert.equal(r.code, 2);
  assert.match(r.stderr, /E_APP_NOT_FOUND/);
  assert.equal((await lsJson(box)).apps[0].workers.length, 3, 'refusals changed nothing');

  // The scaled count holds across a reload (as in PM2) until the file's instances changes.
  assert.match(r.stdout + (await box.cli(['scale', 'web', '3'])).stdout, /web: 3 -> 3 instances; the count holds across reloads and restarts until `instances` changes in its file/);
  r = await box.cli(['reload', 'web']);
  assert.equal(r.code, 0, r.stderr);
  assert.doesNotMatch(r.stdout, /as its file says/);
  assert.equal((await lsJson(box)).apps[0].workers.length, 3, 'a reload keeps the scaled count');
  box.write('eco.yml', `apps:\n  - name: web\n    script: http-server.js\n    instances: 2\n    env: { PORT: ${port} }\n`);
  r = await box.cli(['reload', 'web']);
  assert.match(r.stdout, /web: now 2 workers, as its file says/);
  r = await box.cli(['reload', 'web']);
  assert.equal((await lsJson(box)).apps[0].workers.length, 2, 'the file\'s new count is the app\'s');
});
