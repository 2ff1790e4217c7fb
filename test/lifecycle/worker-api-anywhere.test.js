// superd/worker from an app that has not installed superd (in a directory outside this
// repository): `import` (ES module) and `require` (CommonJS) both resolve to the agent's
// API, ready() makes the worker ready (wait_ready) and onShutdown hooks run on stop; the
// same API is globalThis.superd. Outside superd, the import fails (nothing provides it)
// while globalThis.superd is simply undefined; where superd is installed, all are no-ops.
import test from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { spawnSync } from 'node:child_process';
import { sandbox, freePort, httpGet, lsJson, ROOT } from '../helpers/harness.js';

const esmApp = `
import fs from 'node:fs';
import http from 'node:http';
import { ready, onShutdown, isSuperd, slot } from 'superd/worker';
const mark = (what) => fs.appendFileSync(process.env.MARK_FILE, what + '\\n');
onShutdown(async () => {
  await new Promise((r) => setTimeout(r, 50));
  mark('esm hook');
});
http.createServer((req, res) => res.end(JSON.stringify({ superd: isSuperd(), slot: slot(), global: globalThis.superd.onShutdown === onShutdown })))
  .listen(Number(process.env.PORT), '127.0.0.1', () => setTimeout(ready, 200));
`;

// A .js file without package.json: CommonJS.
const cjsApp = `
const fs = require('node:fs');
const http = require('node:http');
const { ready, onShutdown, isSuperd } = require('superd/worker');
onShutdown(() => fs.appendFileSync(process.env.MARK_FILE, 'cjs hook\\n'));
http.createServer((req, res) => res.end(JSON.stringify({ superd: isSuperd(), resolved: require.resolve('superd/worker') })))
  .listen(Number(process.env.PORT), '127.0.0.1', () => ready());
`;

test('an app without superd installed: import and require of superd/worker, ready() and onShutdown under a real daemon', async (t) => {
  const box = await sandbox(t);
  assert.ok(path.relative(ROOT, box.dir).startsWith('..'), `the app lives outside the repository: ${box.dir}`);
  const [p1, p2] = [await freePort(), await freePort()];
  const marks = path.join(box.dir, 'marks.txt');
  fs.writeFileSync(marks, '');
  box.write('api.mjs', esmApp);
  box.write('job.js', cjsApp);
  const eco = box.write('eco.yml', `
apps:
  - name: api
    script: api.mjs
    instances: 2
    wait_ready: true
    listen_timeout: 10s
    env: { PORT: ${p1}, MARK_FILE: ${JSON.stringify(marks)} }
  - name: job
    script: job.js
    wait_ready: true
    listen_timeout: 10s
    env: { PORT: ${p2}, MARK_FILE: ${JSON.stringify(marks)} }
`);
  const r = await box.cli(['start', eco]);
  assert.equal(r.code, 0, r.stderr);
  assert.equal(r.stderr, '', 'every worker said ready() within listen_timeout');
  assert.deepEqual((await lsJson(box)).apps.map((a) => a.workers.map((w) => [w.status, w.restarts, Boolean(w.not_ready)])),
    [[['online', 0, false], ['online', 0, false]], [['online', 0, false]]]);
  const api = JSON.parse((await httpGet(p1)).body);
  assert.equal(api.superd, true);
  assert.ok([0, 1].includes(api.slot));
  assert.equal(api.global, true, 'globalThis.superd is the same API');
  const job = JSON.parse((await httpGet(p2)).body);
  assert.equal(job.superd, true);
  assert.equal(job.resolved, path.join(ROOT, 'lib', 'worker', 'index.cjs'));

  const stop = await box.cli(['stop', 'all']);
  assert.equal(stop.code, 0, stop.stderr);
  assert.deepEqual(fs.readFileSync(marks, 'utf8').trim().split('\n').sort(), ['cjs hook', 'esm hook', 'esm hook']);

  // Outside superd nothing provides the module; the global is simply absent.
  const plain = spawnSync(process.execPath, [path.join(box.dir, 'api.mjs')], { cwd: box.dir, encoding: 'utf8', timeout: 10000 });
  assert.equal(plain.status, 1);
  assert.match(plain.stderr, /ERR_MODULE_NOT_FOUND/);
  const global = spawnSync(process.execPath, ['--input-type=module', '-e', 'globalThis.superd?.ready(); console.log(typeof globalThis.superd)'], { cwd: box.dir, encoding: 'utf8', timeout: 10000 });
  assert.equal(global.stdout, 'undefined\n');
  // With superd installed (here: inside its own package), every function is a no-op.
  const installed = spawnSync(process.execPath, ['--input-type=module', '-e', `
    import { ready, onShutdown, isSuperd, slot, appName } from 'superd/worker';
    ready(); onShutdown(() => {});
    console.log(JSON.stringify([isSuperd(), slot(), appName()]));`], { cwd: ROOT, encoding: 'utf8', timeout: 10000 });
  assert.equal(installed.stdout, '[false,null,null]\n', installed.stderr);
});
