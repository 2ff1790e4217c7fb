// Issue 17: systemd socket activation. A daemon started as systemd starts it (LISTEN_FDS,
// LISTEN_PID = its own pid, LISTEN_FDNAMES, the sockets from fd 3 on) adopts those sockets:
// an app listening on such a port gets the inherited socket instead of binding anew.
import test from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { spawn, spawnSync } from 'node:child_process';
import { sandbox, freePort, lsJson, httpGet, SUPER } from '../helpers/harness.js';
import { testUser } from '../helpers/test-user.js';

test('LISTEN_FDS: the daemon adopts the sockets systemd passes, and apps listening on those ports serve them', async (t) => {
  const box = await sandbox(t);
  const [port, userPort] = [await freePort(), await freePort()];
  const [socket, userSocket] = [net.createServer(), net.createServer()];
  await new Promise((resolve) => socket.listen(port, '127.0.0.1', () => resolve()));
  await new Promise((resolve) => userSocket.listen(userPort, '127.0.0.1', () => resolve()));
  const fdOf = (s) => /** @type {any} libuv's handle: no public API gives a server's fd */ (s)._handle.fd;
  // LISTEN_PID cannot be known before the spawn: a shell sets it to its own pid, then
  // becomes the daemon (exec keeps the pid and fd 3).
  const daemon = spawn('sh', ['-c', `LISTEN_PID=$$ LISTEN_FDS=2 LISTEN_FDNAMES=web:user exec "${process.execPath}" "${SUPER}" daemon --foreground`], {
    env: { ...process.env, SUPER_HOME: box.home },
    stdio: ['ignore', 'ignore', 'pipe', fdOf(socket), fdOf(userSocket)],
  });
  let stderr = '';
  daemon.stderr.on('data', (d) => (stderr += d));
  t.after(() => daemon.kill('SIGKILL'));
  // The socket now lives in the daemon alone: were it bound anew, the app's listen would
  // fail with EADDRINUSE, since the inherited socket keeps the port.
  await new Promise((resolve) => socket.close(resolve));
  await new Promise((resolve) => userSocket.close(resolve));
  for (let i = 0; i < 400 && !fs.existsSync(path.join(box.home, 'super.sock')); i++) await new Promise((r) => setTimeout(r, 25));

  box.write('app.cjs', `require('node:http').createServer((q, s) => s.end('pid=' + process.pid)).listen(Number(process.env.PORT ?? ${port}), '127.0.0.1');\n`);
  const file = box.write('eco.yml', 'apps:\n  - name: web\n    script: app.cjs\n    instances: 2\n');
  const r = await box.cli(['start', file]);
  assert.equal(r.code, 0, r.stdout + r.stderr + stderr);
  assert.equal((await lsJson(box)).apps[0].status, 'online');
  assert.match((await httpGet(port)).body, /^pid=\d+/);
  const log = fs.readFileSync(path.join(box.home, 'daemon.log'), 'utf8');
  assert.match(log, new RegExp(`"sockets":\\[\\{"fd":3,"address":"127\\.0\\.0\\.1","port":${port},"name":"web"\\},\\{"fd":4,"address":"127\\.0\\.0\\.1","port":${userPort},"name":"user"\\}\\].*adopted inherited listening sockets`));
  // The variables are systemd's message to the daemon alone, not to its workers.
  const worker = (await lsJson(box)).apps[0].workers[0].pid;
  assert.doesNotMatch(fs.readFileSync(`/proc/${worker}/environ`, 'utf8'), /LISTEN_FDS|LISTEN_PID|SUPERD_LISTEN_FDS/);

  // The port stays web's: another app asking for it is judged on the address it asked for,
  // not on the inherited descriptor that serves it.
  const other = await box.cli(['start', box.write('other.yml', 'apps:\n  - name: other\n    script: app.cjs\n    max_restarts: 0\n')]);
  assert.equal(other.code, 1, other.stdout + other.stderr);
  assert.match(other.stderr, new RegExp(`other#0 \\| superd: listen on port ${port} refused: app web listens there`));

  // An app run as another user (uid:, needs root) is served an inherited socket too: its
  // listen is checked as it asked for it (an unprivileged port), then served from the fd.
  if (process.getuid?.() !== 0) return t.diagnostic('not root: the uid: app is not checked');
  const { name: user, uid } = testUser(t, 'sdu');
  fs.chmodSync(box.dir, 0o755); // the user may read its script
  const asUser = await box.cli(['start', box.write('user.yml', `apps:\n  - name: asuser\n    script: app.cjs\n    uid: ${user}\n    max_restarts: 0\n    env: { PORT: ${userPort} }\n`)]);
  assert.equal(asUser.code, 0, asUser.stdout + asUser.stderr);
  const pid = Number(/^pid=(\d+)/.exec((await httpGet(userPort)).body)[1]);
  assert.equal(fs.statSync(`/proc/${pid}`).uid, uid);
});

const hasVerify = spawnSync('systemd-analyze', ['--version']).status === 0;
// CI installs systemd; elsewhere a missing systemd-analyze skips, never passes.
const needVerify = hasVerify || process.env.CI ? {} : { skip: 'systemd-analyze is not installed (apt-get install systemd)' };

test('super startup systemd --socket writes a .socket unit beside the service that passes systemd-analyze verify', needVerify, async (t) => {
  const box = await sandbox(t);
  const dir = path.join(box.dir, 'units');
  const r = await box.cli(['startup', 'systemd', '--unit-dir', dir, '--socket', '127.0.0.1:3000', '8080', '[::1]:3001']);
  assert.equal(r.code, 0, r.stderr);
  const [service, socket] = ['service', 'socket'].map((ext) => fs.readdirSync(dir).find((f) => f.endsWith(`.${ext}`)));
  assert.equal(socket, service.replace(/\.service$/, '.socket'), 'the socket unit has the service\'s name');
  const text = fs.readFileSync(path.join(dir, socket), 'utf8');
  assert.deepEqual(text.match(/^ListenStream=.*$/gm), ['ListenStream=127.0.0.1:3000', 'ListenStream=8080', 'ListenStream=[::1]:3001']);
  assert.match(text, new RegExp(`^Service=${service.replace('.', '\\.')}$`, 'm'));
  const v = spawnSync('systemd-analyze', ['verify', path.join(dir, socket)], { encoding: 'utf8', env: { ...process.env, SYSTEMD_LOG_COLOR: '0' } });
  assert.equal(v.status, 0, v.stderr);
  assert.equal(v.stderr.trim(), '', 'no warning from systemd-analyze');

  const bad = await box.cli(['startup', 'systemd', '--print', '--socket', '127.0.0.1']);
  assert.equal(bad.code, 2);
  assert.match(bad.stderr, /^super: E_USAGE: --socket 127\.0\.0\.1: give a port/);
});

const hasPython = spawnSync('python3', ['-c', '0']).status === 0;

test('LISTEN_FDS naming a TCP socket that does not listen: the daemon closes it, and an app can bind its port (issue 36)', { skip: hasPython ? false : 'python3 is not installed (it makes a bound socket that does not listen)' }, async (t) => {
  const box = await sandbox(t);
  // fd 3: a socket bound to the app's port that does not listen (Node cannot make one;
  // python can), then sh sets LISTEN_PID to its pid and becomes the daemon. Python picks the
  // port and prints it: a port found free beforehand may be taken again by then.
  const py = `import os, socket, sys
s = socket.socket()
s.bind(("127.0.0.1", 0))
print(s.getsockname()[1], flush=True)
os.dup2(s.fileno(), 3)
os.set_inheritable(3, True)
os.execvp("sh", ["sh", "-c", sys.argv[1]])`;
  const daemon = spawn('python3', ['-c', py, `LISTEN_PID=$$ LISTEN_FDS=1 exec "${process.execPath}" "${SUPER}" daemon --foreground`], {
    env: { ...process.env, SUPER_HOME: box.home },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  daemon.stdout.on('data', (d) => (stdout += d));
  let stderr = '';
  daemon.stderr.on('data', (d) => (stderr += d));
  let exited = null;
  daemon.on('exit', (code, signal) => (exited = signal ?? code));
  t.after(() => daemon.kill('SIGKILL'));
  for (let i = 0; i < 1200 && exited === null && !fs.existsSync(path.join(box.home, 'super.sock')); i++) await new Promise((r) => setTimeout(r, 25));
  // Else `super start` below would start a daemon of its own, one that inherited nothing.
  assert.equal(exited, null, `the daemon given LISTEN_FDS exited (${exited}): ${stderr}`);
  assert.ok(fs.existsSync(path.join(box.home, 'super.sock')), `the daemon given LISTEN_FDS is not up after 30 s: ${stderr}`);
  const port = Number(stdout.split('\n')[0]);
  assert.ok(port > 0, `python printed no port: ${stdout}`);

  box.write('app.cjs', `require('node:http').createServer((q, s) => s.end('pid=' + process.pid)).listen(${port}, '127.0.0.1');\n`);
  const file = box.write('eco.yml', 'apps:\n  - name: web\n    script: app.cjs\n    listen_timeout: 5s\n    max_restarts: 1\n');
  const r = await box.cli(['start', file]);
  assert.equal(r.code, 0, r.stdout + r.stderr + stderr);
  assert.equal((await lsJson(box)).apps[0].status, 'online');
  assert.match((await httpGet(port)).body, /^pid=\d+/);
  assert.match(fs.readFileSync(path.join(box.home, 'daemon.log'), 'utf8'), /"fds":\[3\].*closed inherited network sockets that do not listen/);
});
