// Issue 36, major 7: idle connections at the daemon's control listeners (the local socket
// and the TCP one) must not keep out a client that completes its handshake. 400 idle
// connections at each (over the listeners' default bound of 256): a local `super ls` and a
// remote `super --host ... ls` with the token still answer; and the daemon holds only a
// few of the idle ones (the oldest are closed for newcomers).
import test from 'node:test';
import assert from 'node:assert/strict';
import net from 'node:net';
import path from 'node:path';
import { sandbox, freePort } from '../helpers/harness.js';
import { eventually } from '../helpers/wait.js';

const IDLE = 400;

/** Opens `n` connections (`connect()` makes one) that send nothing; resolves with them once each is connected or refused. */
async function idle(n, connect, t) {
  const sockets = [];
  t.after(() => sockets.forEach((s) => s.destroy()));
  await Promise.all(Array.from({ length: n }, () => new Promise((resolve) => {
    const s = connect(() => resolve());
    s.on('error', resolve);
    s.on('close', resolve);
    sockets.push(s);
  })));
  return sockets;
}

test(`${IDLE} idle connections at the local socket and at the TCP control listener: ls still answers, locally and remotely`, { timeout: 60_000 }, async (t) => {
  const box = await sandbox(t);
  const controlPort = await freePort();
  box.fixture('idle.js');
  const eco = box.write('eco.yml', `control:\n  listen: 127.0.0.1:${controlPort}\napps:\n  - name: idle\n    script: idle.js\n    ready_on: spawn\n`);
  assert.equal((await box.cli(['start', eco])).code, 0);

  const local = await idle(IDLE, (cb) => net.connect(path.join(box.home, 'super.sock'), cb), t);
  const remote = await idle(IDLE, (cb) => net.connect(controlPort, '127.0.0.1', cb), t);

  const ls = await box.cli(['ls', '--json'], { timeout: 15_000 });
  assert.equal(ls.code, 0, ls.stderr);
  assert.equal(JSON.parse(ls.stdout).apps[0].name, 'idle');
  const far = await box.cli(['--host', `127.0.0.1:${controlPort}`, 'ls', '--json'], { timeout: 15_000 });
  assert.equal(far.code, 0, far.stderr);
  assert.equal(JSON.parse(far.stdout).apps[0].name, 'idle');

  // the daemon keeps a quarter of a listener's bound for connections still in their handshake
  const open = (sockets) => sockets.filter((s) => !s.destroyed && s.readyState === 'open').length;
  await eventually(() => open(local) <= 64 && open(remote) <= 64, { timeout: 10_000, what: 'the oldest idle connections closed', last: () => `${open(local)} local, ${open(remote)} remote still open` });
});
