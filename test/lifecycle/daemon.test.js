// One daemon per SUPER_HOME, and what happens when it dies.
import test from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { sandbox, freePort, httpGet, lsJson, alive, workerPids, groupPids, waitGone } from '../helpers/harness.js';

test('two concurrent `super start` make one daemon', async (t) => {
  const box = await sandbox(t);
  const [p1, p2] = [await freePort(), await freePort()];
  box.fixture('http-server.js');
  const a = box.write('a.yml', `apps:\n  - name: a\n    script: http-server.js\n    env: { PORT: ${p1} }\n`);
  const b = box.write('b.yml', `apps:\n  - name: b\n    script: http-server.js\n    env: { PORT: ${p2} }\n`);
  // The CLI's own launch code, in-process (box.start): both find no daemon and launch one.
  await Promise.all([box.start(a), box.start(b)]);
  const daemons = fs.readdirSync('/proc').filter((p) => /^\d+$/.test(p)).filter((p) => {
    try {
      const cmd = fs.readFileSync(`/proc/${p}/cmdline`, 'utf8');
      const env = fs.readFileSync(`/proc/${p}/environ`, 'utf8');
      return cmd.includes('lib/master/core/daemon.js') && env.includes(`SUPER_HOME=${box.home}\0`);
    } catch {
      return false;
    }
  });
  assert.equal(daemons.length, 1, `daemons: ${daemons}`);
  assert.equal(box.daemonPid(), Number(daemons[0]), 'daemon.pid names the daemon that runs');
  assert.deepEqual((await lsJson(box)).apps.map((x) => x.name).sort(), ['a', 'b']);
  assert.match((await httpGet(p1)).body, /app=a/);
  assert.match((await httpGet(p2)).body, /app=b/);
});

test('SIGKILL of the daemon: no worker survives; the next start recovers', async (t) => {
  const box = await sandbox(t);
  const port = await freePort();
  box.fixture('http-server.js');
  box.fixture('script.sh');
  const eco = box.write('eco.yml', `
apps:
  - name: web
    script: http-server.js
    instances: 1
    env: { PORT: ${port} }
  - name: sh
    script: script.sh
`);
  await box.start(eco);
  const daemon = box.daemonPid();
  const workers = await workerPids(daemon);
  assert.equal(workers.length, 2, 'a cluster worker and a fork-mode child');
  process.kill(daemon, 'SIGKILL');
  // Cluster workers exit when the IPC channel closes; fork-mode ones by pdeathsig.
  assert.deepEqual(await waitGone(workers), [], 'every worker died with the daemon');
  for (const pid of workers) assert.deepEqual(groupPids(pid), [], `nothing left of group ${pid}`);
  assert.ok(fs.existsSync(path.join(box.home, 'super.sock')), 'a stale socket is left behind');

  await box.start(eco); // what `super start` does, in-process
  assert.notEqual(box.daemonPid(), daemon);
  assert.match((await httpGet(port)).body, /app=web/);
  assert.deepEqual((await lsJson(box)).apps.map((a) => [a.name, a.status]), [['web', 'online'], ['sh', 'online']]);
});

test('SIGTERM to the daemon stops every app gracefully and exits 0', async (t) => {
  const box = await sandbox(t);
  const port = await freePort();
  box.fixture('http-server.js');
  const eco = box.write('eco.yml', `apps:\n  - name: web\n    script: http-server.js\n    instances: 1\n    env: { PORT: ${port} }\n`);
  await box.start(eco);
  const daemon = box.daemonPid();
  const workers = await workerPids(daemon);
  assert.equal(workers.length, 1);
  process.kill(daemon, 'SIGTERM');
  assert.deepEqual(await waitGone([daemon]), []);
  assert.deepEqual(workers.filter(alive), []);
  assert.equal(fs.existsSync(path.join(box.home, 'super.sock')), false, 'socket removed');
  assert.equal(fs.existsSync(path.join(box.home, 'daemon.pid')), false, 'pid file removed');
  const log = fs.readFileSync(path.join(box.home, 'daemon.log'), 'utf8');
  assert.match(log, /"reason":"SIGTERM"/);
  assert.match(log, /"code":0,"msg":"daemon exit"/);
});

test('a SUPER_HOME open to others is refused', async (t) => {
  const box = await sandbox(t);
  fs.mkdirSync(box.home, { mode: 0o700 });
  fs.chmodSync(box.home, 0o777);
  box.fixture('idle.js');
  const eco = box.write('eco.yml', 'apps:\n  - name: x\n    script: idle.js\n    ready_on: spawn\n');
  const r = await box.cli(['start', eco]);
  assert.equal(r.code, 3);
  assert.match(r.stderr, /E_DAEMON_START: .*writable by group or others \(mode 777\); run: chmod 700/);
});
