// Issue 7, part 1: the local control socket is the credential of everyone who can open it,
// so it is 0600 in a 0700 SUPER_HOME, another user cannot connect, and a daemon refuses a
// SUPER_HOME that belongs to someone else (group/world-writable: test/lifecycle/daemon.test.js).
import test from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { spawn } from 'node:child_process';
import { sandbox } from '../helpers/harness.js';

const root = typeof process.getuid === 'function' && process.getuid() === 0;
const NOBODY = 65534;

test('the control socket is 0600 in a 0700 SUPER_HOME', async (t) => {
  const box = await sandbox(t);
  box.fixture('idle.js');
  const eco = box.write('eco.yml', 'apps:\n  - name: web\n    script: idle.js\n    ready_on: spawn\n    min_uptime: 200ms\n');
  await box.start(eco);
  const sock = fs.statSync(path.join(box.home, 'super.sock'));
  assert.ok(sock.isSocket());
  assert.equal(sock.mode & 0o777, 0o600, 'socket mode');
  assert.equal(fs.statSync(box.home).mode & 0o777, 0o700, 'SUPER_HOME mode');
});

test('another user cannot connect to the control socket', { skip: root ? false : 'needs root to run a process as another user' }, async (t) => {
  const box = await sandbox(t);
  box.fixture('idle.js');
  const eco = box.write('eco.yml', 'apps:\n  - name: web\n    script: idle.js\n    ready_on: spawn\n    min_uptime: 200ms\n');
  await box.start(eco);
  // Even with every directory on the way opened up, the socket's own mode keeps them out.
  fs.chmodSync(box.dir, 0o755);
  fs.chmodSync(box.home, 0o755);
  const sockPath = path.join(box.home, 'super.sock');
  const code = `require('net').connect(${JSON.stringify(sockPath)}).on('connect', () => { console.log('CONNECTED'); process.exit(0); }).on('error', (e) => { console.log(e.code); process.exit(1); });`;
  const out = await new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['-e', code], { uid: NOBODY, gid: NOBODY, stdio: ['ignore', 'pipe', 'pipe'] });
    let text = '';
    child.stdout.on('data', (d) => (text += d));
    child.stderr.on('data', (d) => (text += d));
    child.on('error', reject);
    child.on('close', (status) => resolve({ status, text }));
  });
  assert.equal(out.status, 1, out.text);
  assert.match(out.text, /EACCES/);
});

test('a SUPER_HOME owned by another user is refused (E_HOME), nothing started', { skip: root ? false : 'needs root to chown' }, async (t) => {
  const box = await sandbox(t);
  fs.mkdirSync(box.home, { mode: 0o700 });
  fs.chownSync(box.home, NOBODY, NOBODY);
  box.fixture('idle.js');
  const eco = box.write('eco.yml', 'apps:\n  - name: web\n    script: idle.js\n    ready_on: spawn\n');
  const r = await box.cli(['daemon'], { timeout: 20000 });
  assert.equal(r.code, 1);
  assert.match(r.stderr, /E_HOME: SUPER_HOME .* belongs to uid 65534, not to you/);
  const s = await box.cli(['start', eco]);
  assert.notEqual(s.code, 0);
  assert.match(s.stderr, /belongs to uid 65534/);
  assert.equal(fs.existsSync(path.join(box.home, 'super.sock')), false);
});
