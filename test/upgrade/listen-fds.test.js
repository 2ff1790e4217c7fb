// Issue 17: systemd socket activation. A daemon started as systemd starts it (LISTEN_FDS,
// LISTEN_PID = its own pid, LISTEN_FDNAMES, the sockets from fd 3 on) adopts those sockets:
// an app listening on such a port gets the inherited socket instead of binding anew.
import test from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { spawn } from 'node:child_process';
import { sandbox, freePort, lsJson, httpGet, SUPER } from '../helpers/harness.js';

test('LISTEN_FDS: the daemon adopts the sockets systemd passes, and apps listening on those ports serve them', async (t) => {
  const box = await sandbox(t);
  const port = await freePort();
  const socket = net.createServer();
  await new Promise((resolve) => socket.listen(port, '127.0.0.1', resolve));
  // LISTEN_PID cannot be known before the spawn: a shell sets it to its own pid, then
  // becomes the daemon (exec keeps the pid and fd 3).
  const daemon = spawn('sh', ['-c', `LISTEN_PID=$$ LISTEN_FDS=1 LISTEN_FDNAMES=web exec "${process.execPath}" "${SUPER}" daemon --foreground`], {
    env: { ...process.env, SUPER_HOME: box.home },
    stdio: ['ignore', 'ignore', 'pipe', socket._handle.fd],
  });
  let stderr = '';
  daemon.stderr.on('data', (d) => (stderr += d));
  t.after(() => daemon.kill('SIGKILL'));
  // The socket now lives in the daemon alone: were it bound anew, the app's listen would
  // fail with EADDRINUSE, since the inherited socket keeps the port.
  await new Promise((resolve) => socket.close(resolve));
  for (let i = 0; i < 400 && !fs.existsSync(path.join(box.home, 'super.sock')); i++) await new Promise((r) => setTimeout(r, 25));

  box.write('app.cjs', `require('node:http').createServer((q, s) => s.end('pid=' + process.pid)).listen(${port}, '127.0.0.1');\n`);
  const file = box.write('eco.yml', 'apps:\n  - name: web\n    script: app.cjs\n    instances: 2\n');
  const r = await box.cli(['start', file]);
  assert.equal(r.code, 0, r.stdout + r.stderr + stderr);
  assert.equal((await lsJson(box)).apps[0].status, 'online');
  assert.match((await httpGet(port)).body, /^pid=\d+/);
  const log = fs.readFileSync(path.join(box.home, 'daemon.log'), 'utf8');
  assert.match(log, new RegExp(`"sockets":\\[\\{"fd":3,"address":"127\\.0\\.0\\.1","port":${port},"name":"web"\\}\\].*adopted inherited listening sockets`));
  // The variables are systemd's message to the daemon alone, not to its workers.
  const worker = (await lsJson(box)).apps[0].workers[0].pid;
  assert.doesNotMatch(fs.readFileSync(`/proc/${worker}/environ`, 'utf8'), /LISTEN_FDS|LISTEN_PID|SUPERD_LISTEN_FDS/);
});
