// Issue 14, item 7: idle sockets at the daemon's listeners must not take its file
// descriptors. The daemon runs with a soft limit of 256 descriptors; 400 idle connections
// are opened at its metrics endpoint, then 400 more at its TCP control listener: each holds
// only its bound, `super ls` answers, a new control connection is accepted and the app
// keeps serving (round-robin: the daemon accepts the app's connections, which needs
// descriptors). Then 300 idle connections at the local control socket: the daemon still
// keeps its reserve, and `super ls` answers once they are gone.
import test from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import net from 'node:net';
import { spawn } from 'node:child_process';
import { sandbox, freePort, httpGet, SUPER } from '../helpers/harness.js';

const NOFILE = 256;
const IDLE = 400;

/** Opens `n` TCP connections to `port` and sends nothing; resolves with the sockets (connected or refused). */
async function idleSockets(port, n, t) {
  const sockets = [];
  t.after(() => sockets.forEach((s) => s.destroy()));
  await Promise.all(Array.from({ length: n }, () => new Promise((resolve) => {
    const s = net.connect(port, '127.0.0.1', () => resolve());
    s.on('error', resolve);
    s.on('close', resolve);
    sockets.push(s);
  })));
  return sockets;
}

/** Opens `n` connections to the unix socket `file` and sends nothing. */
async function idleLocal(file, n, t) {
  const sockets = [];
  t.after(() => sockets.forEach((s) => s.destroy()));
  await Promise.all(Array.from({ length: n }, () => new Promise((resolve) => {
    const s = net.connect(file, () => resolve());
    s.on('error', resolve);
    s.on('close', resolve);
    sockets.push(s);
  })));
  return sockets;
}

test(`${IDLE} idle sockets at the metrics endpoint and at the TCP control listener, 300 at the local socket: the daemon keeps descriptors for ls and the apps`, { timeout: 90000 }, async (t) => {
  const box = await sandbox(t);
  const [port, metricsPort, controlPort] = [await freePort(), await freePort(), await freePort()];
  box.fixture('http-server.js');
  const eco = box.write('eco.yml', `metrics:\n  listen: 127.0.0.1:${metricsPort}\ncontrol:\n  listen: 127.0.0.1:${controlPort}\napps:\n  - name: web\n    script: http-server.js\n    env: { PORT: ${port} }\n`);
  // The daemon inherits the CLI's limits.
  const started = await new Promise((resolve, reject) => {
    const cli = spawn('bash', ['-c', `ulimit -n ${NOFILE} && exec "${process.execPath}" "${SUPER}" start "${eco}"`], { env: { ...process.env, SUPER_HOME: box.home }, stdio: 'ignore' });
    cli.on('error', reject);
    cli.on('close', resolve);
  });
  assert.equal(started, 0);
  assert.equal((await httpGet(metricsPort, '/metrics')).status, 200);

  await idleSockets(metricsPort, IDLE, t);
  await idleSockets(controlPort, IDLE, t);
  const client = await box.client();
  t.after(() => client.close());
  assert.equal((await client.request('ls')).apps[0].name, 'web');
  const cli = await box.cli(['ls', '--json']);
  assert.equal(cli.code, 0, cli.stderr);
  for (let i = 0; i < 20; i++) assert.equal((await httpGet(port, '/', { timeout: 5000 })).status, 200, 'the app serves');
  const daemonFds = fs.readdirSync(`/proc/${box.daemonPid()}/fd`).length;
  t.diagnostic(`daemon descriptors with ${IDLE} idle sockets at the metrics endpoint and ${IDLE} at the TCP control listener: ${daemonFds} (soft limit ${NOFILE})`);
  assert.ok(daemonFds < NOFILE * 0.75, `the daemon keeps a reserve of descriptors: ${daemonFds} of ${NOFILE} open`);

  const local = await idleLocal(`${box.home}/super.sock`, 300, t);
  const withLocal = fs.readdirSync(`/proc/${box.daemonPid()}/fd`).length;
  t.diagnostic(`... and 300 idle connections at the local socket: ${withLocal}`);
  assert.ok(withLocal < NOFILE * 0.9, `the local socket's bound keeps a reserve too: ${withLocal} of ${NOFILE} open`);
  for (let i = 0; i < 5; i++) assert.equal((await httpGet(port, '/', { timeout: 5000 })).status, 200, 'the app serves');
  local.forEach((s) => s.destroy());
  const after = await box.cli(['ls', '--json']);
  assert.equal(after.code, 0, after.stderr);

});
