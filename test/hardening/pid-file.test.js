// Issue 14, item 5: what a daemon.pid file may hold must not block a daemon. Garbage (NUL
// bytes, text) and the pid of a live superd daemon of ANOTHER SUPER_HOME are stale: the
// daemon of this home boots. Only the daemon of this home blocks (exit 10, which the
// systemd unit does not restart). Daemons are booted as `super start` launches them.
import test from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { spawn, execFileSync } from 'node:child_process';
import { sandbox, alive, waitGone, ROOT } from '../helpers/harness.js';
import { LAUNCH } from '../../lib/ipc/launch-protocol.js';

const DAEMON = path.join(ROOT, 'lib', 'master', 'core', 'daemon.js');

/** Boots a daemon for `home`; resolves {pid, ready: true} once it says ready, or {code, stderr} if it exits first. */
function boot(home) {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [DAEMON], { env: { ...process.env, SUPER_HOME: home }, stdio: ['ignore', 'ignore', 'pipe', 'ipc'] });
    let stderr = '';
    child.stderr.on('data', (d) => (stderr += d));
    child.on('error', reject);
    child.on('message', /** @param {any} m */ (m) => {
      if (m?.cmd !== LAUNCH.READY) return;
      child.stderr.destroy();
      resolve({ pid: child.pid, ready: true });
    });
    child.on('close', (code) => resolve({ code, stderr }));
  });
}

async function stop(pid) {
  process.kill(pid, 'SIGTERM');
  assert.deepEqual(await waitGone([pid]), []);
}

test('daemon.pid: garbage or another home\'s daemon does not block; this home\'s daemon does', { timeout: 60000 }, async (t) => {
  const box = await sandbox(t);
  const other = await sandbox(t);
  fs.mkdirSync(box.home, { mode: 0o700 });
  const pidFile = path.join(box.home, 'daemon.pid');
  const bootsDespite = async (content) => {
    fs.writeFileSync(pidFile, content);
    const d = await boot(box.home);
    assert.equal(d.ready, true, `the daemon did not boot: exit ${d.code}: ${d.stderr}`);
    assert.equal(box.daemonPid(), d.pid, 'daemon.pid names the new daemon');
    return d;
  };

  await t.test('NUL bytes', async () => stop((await bootsDespite(Buffer.alloc(16))).pid));
  await t.test('text', async () => stop((await bootsDespite('not a pid\n')).pid));

  let ours;
  await t.test('a live superd daemon of another SUPER_HOME', async () => {
    const theirs = await boot(other.home);
    assert.equal(theirs.ready, true);
    ours = await bootsDespite(`${theirs.pid}\n`);
    assert.ok(alive(theirs.pid), 'the other home\'s daemon is left alone');
  });

  await t.test('this home\'s daemon blocks a second one with exit 10', async () => {
    const second = await boot(box.home);
    assert.equal(second.code, 10, second.stderr);
    assert.match(second.stderr, /already runs for this SUPER_HOME/);
    assert.equal(box.daemonPid(), ours.pid);
  });
});

// Issue 27 (minor): a FIFO at daemon.pid hung `super start` and left the daemon blocked
// opening it. Now the daemon refuses it at once, and `super start` says why.
test('daemon.pid as a FIFO: super start fails at once and says the file is not a regular file', { timeout: 30000 }, async (t) => {
  const box = await sandbox(t);
  fs.mkdirSync(box.home, { mode: 0o700 });
  const pidFile = path.join(box.home, 'daemon.pid');
  execFileSync('mkfifo', ['-m', '600', pidFile]);
  box.write('idle.js', 'setInterval(() => {}, 1000);\n');
  const r = await box.cli(['start', path.join(box.dir, 'idle.js')], { timeout: 15000 });
  assert.equal(r.signal, null, 'super start ended by itself');
  assert.notEqual(r.code, 0);
  assert.match(r.stderr, /E_HOME: .*daemon\.pid is not a regular file \(a FIFO, socket or device\); remove it/);
  assert.ok(fs.lstatSync(pidFile).isFIFO(), 'the FIFO is left for the user to look at');
});
