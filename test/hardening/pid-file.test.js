// Issue 14, item 5: what a daemon.pid file may hold must not block a start. Garbage (NUL
// bytes, text) and the pid of a live superd daemon of ANOTHER SUPER_HOME are stale: the
// daemon of this home starts. Only the daemon of this home blocks (exit 10, which the
// systemd unit does not restart).
import test from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { spawnSync } from 'node:child_process';
import { sandbox, alive, SUPER } from '../helpers/harness.js';

test('daemon.pid: garbage or another home\'s daemon does not block; this home\'s daemon does', { timeout: 60000 }, async (t) => {
  const box = await sandbox(t);
  const other = await sandbox(t);
  box.fixture('idle.js');
  other.fixture('idle.js');
  fs.mkdirSync(box.home, { mode: 0o700 });
  const pidFile = path.join(box.home, 'daemon.pid');
  const startIdle = async () => {
    const r = await box.cli(['start', path.join(box.dir, 'idle.js'), '--name', 'idle']);
    assert.equal(r.code, 0, `super start: ${r.stdout}${r.stderr}`);
    assert.equal(box.daemonPid() > 0, true, 'daemon.pid names the new daemon');
  };
  const kill = async () => assert.equal((await box.cli(['kill'])).code, 0);

  await t.test('NUL bytes', async () => {
    fs.writeFileSync(pidFile, Buffer.alloc(16));
    await startIdle();
    await kill();
  });

  await t.test('text', async () => {
    fs.writeFileSync(pidFile, 'not a pid\n');
    await startIdle();
    await kill();
  });

  await t.test('a live superd daemon of another SUPER_HOME', async () => {
    assert.equal((await other.cli(['start', path.join(other.dir, 'idle.js'), '--name', 'idle'])).code, 0);
    const theirs = other.daemonPid();
    fs.writeFileSync(pidFile, `${theirs}\n`);
    await startIdle();
    assert.notEqual(box.daemonPid(), theirs);
    assert.ok(alive(theirs), 'the other home\'s daemon is left alone');
  });

  await t.test('this home\'s daemon blocks a second one with exit 10', () => {
    const r = spawnSync(process.execPath, [SUPER, 'daemon'], { env: { ...process.env, SUPER_HOME: box.home }, encoding: 'utf8', timeout: 20000 });
    assert.equal(r.status, 10, r.stderr);
    assert.match(r.stderr, /already runs for this SUPER_HOME/);
  });
});
