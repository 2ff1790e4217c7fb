// start / ls / curl / describe / restart / stop / delete / kill against real workers,
// with an ESM and a CommonJS app side by side.
import test from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import { sandbox, freePort, httpGet, lsJson, describeJson, alive, workerPids } from '../helpers/harness.js';

test('start, serve, ls, describe, restart, stop, delete, kill', async (t) => {
  const box = await sandbox(t);
  const [p1, p2] = [await freePort(), await freePort()];
  box.fixture('http-server.js');
  box.fixture('http-server.cjs');
  const eco = box.write('eco.yml', `
apps:
  - name: esm
    script: http-server.js
    instances: 2
    env: { PORT: ${p1}, API_TOKEN: hunter2, GREETING: hi }
  - name: cjs
    script: http-server.cjs
    env: { PORT: ${p2} }
`);
  const r = await box.cli(['start', eco]);
  assert.equal(r.code, 0, r.stderr);
  assert.match(r.stdout, /started esm/);
  assert.match(r.stdout, /started cjs/);

  // start returns once the workers listen: the ports answer at once.
  const a = await httpGet(p1);
  assert.match(a.body, /^slot=[01] pid=\d+ app=esm$/m);
  const b = await httpGet(p2);
  assert.match(b.body, /^cjs slot=0 pid=\d+ argv1=.*http-server\.cjs$/m, 'the user script is process.argv[1]');

  // The CLI's own `ls --json` here; elsewhere lsJson asks the daemon in-process.
  const cliLs = await box.cli(['ls', '--json']);
  assert.equal(cliLs.code, 0, cliLs.stderr);
  const ls = JSON.parse(cliLs.stdout);
  assert.deepEqual(ls.apps.map((x) => [x.name, x.status, x.instances, x.workers.length]), [['esm', 'online', 2, 2], ['cjs', 'online', 1, 1]]);
  const w = ls.apps[0].workers[0];
  assert.deepEqual(Object.keys(w).sort(), ['cpu', 'cpus', 'memory', 'metrics', 'pid', 'pinned', 'replacing', 'restarts', 'slot', 'stall_capture', 'start_error', 'status', 'uptime_ms']);
  assert.ok(w.pid > 0 && w.memory > 1e6, `memory sampled: ${w.memory}`);
  assert.deepEqual(ls.apps[0].workers.map((x) => x.slot), [0, 1]);

  const table = await box.cli(['ls']);
  assert.match(table.stdout, /^id\s+app\s+slot\s+pid\s+status\s+uptime\s+restarts\s+cpu\s+memory\s+loop p99$/m);
  assert.match(table.stdout, /^0\s+esm\s+1\s+\d+\s+online\s/m);

  const d = await box.cli(['describe', 'esm']);
  assert.equal(d.code, 0, d.stderr);
  assert.match(d.stdout, /API_TOKEN.*\*{8}/, 'secret-looking env values are masked');
  assert.doesNotMatch(d.stdout, /hunter2/);
  assert.match(d.stdout, /GREETING.*hi/);

  // start again: already running, nothing restarted
  const again = await box.cli(['start', eco]);
  assert.equal(again.code, 0, again.stderr);
  assert.match(again.stdout, /esm is already running; use `super reload esm`/);
  const pidsBefore = (await lsJson(box)).apps[0].workers.map((x) => x.pid);
  assert.deepEqual(pidsBefore, ls.apps[0].workers.map((x) => x.pid));

  // changed config for a running app applies at the next restart, and says so
  box.write('eco.yml', `
apps:
  - name: esm
    script: http-server.js
    instances: 2
    env: { PORT: ${p1}, API_TOKEN: hunter2, GREETING: hello }
  - name: cjs
    script: http-server.cjs
    env: { PORT: ${p2} }
`);
  const changed = await box.cli(['start', eco]);
  assert.match(changed.stdout, /esm is already running; its config changed \(env\): apply it with `super reload esm`/);
  const rs = await box.cli(['restart', 'esm']);
  assert.equal(rs.code, 0, rs.stderr);
  const after = await lsJson(box);
  const esm = after.apps.find((x) => x.name === 'esm');
  assert.equal(esm.status, 'online');
  assert.ok(esm.workers.every((x, i) => x.pid !== pidsBefore[i] && x.restarts === 1), 'new pids, restart counted');
  const d2 = await box.cli(['describe', 'esm', '--json']);
  assert.equal(JSON.parse(d2.stdout).config.env.GREETING, 'hello');

  // a change noted while running, then a stop: the noted change must not outlive the stop
  box.write('eco.yml', fs.readFileSync(eco, 'utf8').replace('GREETING: hello', 'GREETING: pending'));
  assert.match((await box.cli(['start', eco])).stdout, /its config changed \(env\)/);
  const st = await box.cli(['stop', 'esm']);
  assert.equal(st.code, 0, st.stderr);
  await assert.rejects(httpGet(p1, '/', { timeout: 1000 }), 'stopped app no longer answers');
  const stopped = await lsJson(box);
  assert.deepEqual(stopped.apps.find((x) => x.name === 'esm').workers.map((x) => [x.status, x.pid]), [['stopped', null], ['stopped', null]]);
  for (const pid of pidsBefore) assert.equal(alive(pid), false);

  // start brings a stopped app back, with the file as it is now (not an older noted change)
  box.write('eco.yml', fs.readFileSync(eco, 'utf8').replace('GREETING: pending', 'GREETING: again'));
  await box.start(eco);
  assert.match((await httpGet(p1)).body, /app=esm/);
  assert.equal((await describeJson(box, 'esm')).config.env.GREETING, 'again'); // the CLI's describe --json: above

  const del = await box.cli(['delete', 'cjs']);
  assert.equal(del.code, 0, del.stderr);
  assert.deepEqual((await lsJson(box)).apps.map((x) => x.name), ['esm']);

  const nope = await box.cli(['stop', 'nope']);
  assert.equal(nope.code, 2);
  assert.match(nope.stderr, /^super: E_APP_NOT_FOUND: no app named "nope"; known apps: esm$/m);

  const daemon = box.daemonPid();
  const workers = await workerPids(daemon);
  assert.ok(workers.length >= 2);
  const k = await box.cli(['kill']);
  assert.equal(k.code, 0, k.stderr);
  assert.equal(alive(daemon), false, 'daemon gone');
  for (const pid of workers) assert.equal(alive(pid), false, `worker ${pid} gone`);
  const ping = await box.cli(['ping']);
  assert.equal(ping.code, 3);
  assert.match(ping.stderr, /E_NO_DAEMON/);
});

test('--env picks env_<name>, --only starts a subset', async (t) => {
  const box = await sandbox(t);
  const port = await freePort();
  box.write('env.js', `require('node:http').createServer((q, r) => r.end([process.env.MODE, process.env.FROM_SHELL, process.env.SUPER_SLOT].join(' '))).listen(${port}, '127.0.0.1');`);
  box.fixture('idle.js');
  const eco = box.write('eco.yml', `
apps:
  - name: web
    script: env.js
    env: { MODE: dev }
    env_production: { MODE: prod }
  - name: other
    script: idle.js
    ready_on: spawn
`);
  // The environment of `super start` is inherited (as with PM2), the app's env wins.
  const r = await box.cli(['start', eco, '--env', 'production', '--only', 'web'], { env: { FROM_SHELL: 'yes', MODE: 'shell' } });
  assert.equal(r.code, 0, r.stderr);
  assert.equal((await httpGet(port)).body, 'prod yes 0');
  assert.deepEqual((await lsJson(box)).apps.map((a) => a.name), ['web']);
});
