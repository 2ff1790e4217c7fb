// Issue 14, item 6: a root daemon and a second, real user who controls some paths. Root must
// not write through a link the user planted ($SUPER_HOME/daemon.err in a SUPER_HOME the
// user owns), must refuse log directories the user can write in, and must not follow a link
// at an app's log path (at start, nor at `super flush`, nor when `super logs` reads it). The user's own `super kill`
// against root's daemon says EACCES instead of "no daemon is running".
// Needs root (useradd, chown); skipped with the reason otherwise.
import test from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { execFile } from 'node:child_process';
import { sandbox, freePort, superCli, httpGet, SUPER } from '../helpers/harness.js';
import { testUser } from '../helpers/test-user.js';

const notRoot = process.getuid?.() !== 0 && 'needs root: creates a user and files owned by it';
const SECRET = 'root-only secret\n';

test('a root daemon and another user\'s paths', { skip: notRoot, timeout: 60000 }, async (t) => {
  const box = await sandbox(t);
  const { name: user, uid, gid } = testUser(t, 'sdt', { home: true }); // deleted after the sandbox's cleanup
  fs.chmodSync(box.dir, 0o755); // the user may enter, not write
  const secret = box.write('secret', SECRET);
  fs.chmodSync(secret, 0o600);
  const port = await freePort();
  box.fixture('http-server.js');
  const eco = (dir) => box.write(`eco-${path.basename(dir)}.yml`, `apps:\n  - name: web\n    script: http-server.js\n    out_file: ${path.join(dir, 'web-out.log')}\n    error_file: ${path.join(dir, 'web-err.log')}\n    env: { PORT: ${port} }\n`);
  const mkdir = (name, mode, owner = 0, group = owner === 0 ? 0 : gid) => {
    const dir = path.join(box.dir, name);
    fs.mkdirSync(dir);
    fs.chmodSync(dir, mode);
    fs.chownSync(dir, owner, group);
    return dir;
  };

  await t.test('root with a SUPER_HOME the user owns: refused before daemon.err is opened', async () => {
    const home = mkdir('user-home', 0o700, uid);
    fs.symlinkSync(secret, path.join(home, 'daemon.err'));
    const r = await superCli(home, ['start', eco(box.dir)]);
    assert.notEqual(r.code, 0);
    assert.match(r.stderr, /E_DAEMON_START: .*belongs to uid/);
    assert.equal(fs.readFileSync(secret, 'utf8'), SECRET, 'the file behind the link is untouched');
  });

  await t.test('root with a SUPER_HOME below a directory the user owns or may write in: refused', async () => {
    // The user could rename root's home aside and plant their own token in its place.
    for (const [parent, why] of /** @type {[string, RegExp][]} */ ([[mkdir('user-parent', 0o755, uid), /user-parent belongs to uid/], [mkdir('group-parent', 0o775, 0, gid), /group-parent is writable by group .*not sticky/]])) {
      const home = path.join(parent, 'home');
      fs.mkdirSync(home, { mode: 0o700 });
      const r = await superCli(home, ['start', eco(box.dir)]);
      if (r.code === 0) await superCli(home, ['kill']); // without the check: a daemon started there
      assert.notEqual(r.code, 0, r.stdout);
      assert.match(r.stderr, /E_DAEMON_START: .*SUPER_HOME .* is not safe: /);
      assert.match(r.stderr, why);
      assert.deepEqual(fs.readdirSync(home), [], 'nothing started, nothing written');
    }
    // A link on the way that the user owns: they could point it at a home of their own.
    const rootHome = mkdir('root-home', 0o700);
    const link = path.join(box.dir, 'home-link');
    fs.symlinkSync(rootHome, link);
    fs.lchownSync(link, uid, gid);
    const r = await superCli(link, ['start', eco(box.dir)]);
    if (r.code === 0) await superCli(link, ['kill']);
    assert.match(r.stderr, /E_DAEMON_START: .*home-link is a symbolic link that belongs to uid/);
  });

  await t.test('log directories the user can write in are refused', async () => {
    /** @type {[string, RegExp][]} */
    const refused = [
      [mkdir('user-logs', 0o755, uid), /belongs to uid/],
      [mkdir('open-logs', 0o777), /writable by others/],
      [mkdir('group-logs', 0o775, 0, gid), /writable by group/],
    ];
    for (const [dir, why] of refused) {
      const r = await box.cli(['start', eco(dir)]);
      assert.equal(r.code, 2, r.stderr);
      assert.match(r.stderr, /E_LOG_PATH: .*/);
      assert.match(r.stderr, why);
    }
  });

  const logs = mkdir('logs', 0o755);
  await t.test('a link at an app log path is not followed', async () => {
    fs.symlinkSync(secret, path.join(logs, 'web-out.log'));
    const r = await box.cli(['start', eco(logs)]);
    assert.equal(r.code, 2, r.stderr);
    assert.match(r.stderr, /E_LOG_PATH: .*symbolic link/);
    assert.equal(fs.readFileSync(secret, 'utf8'), SECRET);
    fs.rmSync(path.join(logs, 'web-out.log'));
  });

  await t.test('super flush does not truncate through a link that replaced a log file', async () => {
    assert.equal((await box.cli(['start', eco(logs)])).code, 0);
    assert.equal((await httpGet(port)).status, 200);
    fs.rmSync(path.join(logs, 'web-out.log'));
    fs.symlinkSync(secret, path.join(logs, 'web-out.log'));
    const r = await box.cli(['flush', 'web']);
    assert.equal(r.code, 2);
    assert.match(r.stderr, /E_LOG_PATH: .*web-out\.log is a symbolic link, not emptied/);
    assert.equal(fs.readFileSync(secret, 'utf8'), SECRET);
  });

  await t.test('super logs does not read through that link (issue 27), and says so', async () => {
    const r = await box.cli(['logs', 'web', '--out']);
    assert.equal(r.code, 2, r.stdout);
    assert.match(r.stderr, /E_LOG_PATH: .*web-out\.log is a symbolic link; superd does not read log files through links/);
    assert.doesNotMatch(r.stdout, /root-only secret/);
  });

  await t.test('the user\'s super kill against root\'s daemon says EACCES', async () => {
    const r = await new Promise((resolve, reject) => {
      execFile(process.execPath, [SUPER, 'kill'], { uid, gid, env: { PATH: process.env.PATH, HOME: `/home/${user}`, SUPER_HOME: box.home }, timeout: 20000 },
        (err, stdout, stderr) => (err && err.code === undefined ? reject(err) : resolve({ code: err?.code ?? 0, stdout, stderr })));
    });
    assert.notEqual(r.code, 0, r.stdout);
    assert.match(r.stderr, /EACCES/);
    assert.doesNotMatch(r.stdout, /no daemon is running/);
    assert.equal((await httpGet(port)).status, 200, 'root\'s daemon still serves');
  });
});
