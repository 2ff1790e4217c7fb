// Issue 14, item 7: idle sockets at the daemon's listeners must not take its file
// descriptors. The daemon runs with a soft limit of 256 descriptors; 400 idle connections
// are opened at its metrics endpoint: the endpoint holds only its bound, `super ls` answers,
// a new control connection is accepted and the app keeps serving (round-robin: the daemon
// accepts the app's connections, which needs descriptors).
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
    const s = net.connect(port, '127.0.0.1', resolve);
    s.on('error', resolve);
    s.on('close', resolve);
    sockets.push(s);
  })));
  return sockets;
}

test(`${IDLE} idle sockets at the metrics endpoint: the daemon keeps descriptors for ls and the apps`, { timeout: 60000 }, async (t) => {
  const box = await sandbox(t);
  const [port, metricsPort] = [await freePort(), await freePort()];
  box.fixture('http-server.js');
  const eco = box.write('eco.yml', `metrics:\n  listen: 127.0.0.1:${metricsPort}\napps:\n  - name: web\n    script: http-server.js\n    env: { PORT: ${port} }\n`);
  // The daemon inherits the CLI's limits.
  const started = await new Promise((resolve, reject) => {
    const cli = spawn('bash', ['-c', `ulimit -n ${NOFILE} && exec "${process.execPath}" "${SUPER}" start "${eco}"`], { env: { ...process.env, SUPER_HOME: box.home }, stdio: 'ignore' });
    cli.on('error', reject);
    cli.on('close', resolve);
  });
  assert.equal(started, 0);
  assert.equal((await httpGet(metricsPort, '/metrics')).status, 200);

  await idleSockets(metricsPort, IDLE, t);
  const client = await box.client();
  t.after(() => client.close());
  assert.equal((await client.request('ls')).apps[0].name, 'web');
  const cli = await box.cli(['ls', '--json']);
  assert.equal(cli.code, 0, cli.stderr);
  for (let i = 0; i < 20; i++) assert.equal((await httpGet(port, '/', { timeout: 5000 })).status, 200, 'the app serves');
  const daemonFds = fs.readdirSync(`/proc/${box.daemonPid()}/fd`).length;
  t.diagnostic(`daemon descriptors with ${IDLE} idle sockets at the metrics endpoint: ${daemonFds} (soft limit ${NOFILE})`);
  assert.ok(daemonFds < NOFILE * 0.75, `the daemon keeps a reserve of descriptors: ${daemonFds} of ${NOFILE} open`);

});
