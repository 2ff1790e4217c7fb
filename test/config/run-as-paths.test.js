// Issue 36, minor: an app run as another user (`uid`) gets only a cwd and log files that user
// could reach by itself, as its listen paths are checked: the daemon (root) changes into the
// cwd before it drops to the user, and opens the log files for it, so a 0700 root directory
// or `out_file: /etc/x.log` would hand the user what it could never open. The checks read
// the modes, so they run as any user (uid 65534 stands for the app's user).
import test from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { loadEcosystemText } from '../../lib/config/index.js';

const APP_USER = 65534;

test('a uid app\'s cwd and log files must be its user\'s to reach', (t) => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'sd-runas-'));
  t.after(() => fs.rmSync(dir, { recursive: true, force: true }));
  fs.chmodSync(dir, 0o755);
  fs.writeFileSync(path.join(dir, 'app.js'), '');
  const closed = path.join(dir, 'closed');
  fs.mkdirSync(closed, { mode: 0o700 });
  fs.chmodSync(closed, 0o700);
  const theirs = path.join(dir, 'theirs.log');
  fs.writeFileSync(theirs, '');
  fs.chmodSync(theirs, 0o666); // writable by anyone, the app's user included
  const mine = path.join(dir, 'mine.log');
  fs.writeFileSync(mine, '');
  fs.chmodSync(mine, 0o644);
  const load = (app, uid = APP_USER) => loadEcosystemText(JSON.stringify({ apps: [{ name: 'web', script: path.join(dir, 'app.js'), ...app, ...(uid !== null && { uid }) }] }), path.join(dir, 'eco.json'), { cpus: 2, isRoot: true });
  const problemsOf = (app) => {
    try {
      load(app);
      return [];
    } catch (err) {
      assert.equal(err.code, 'E_CONFIG');
      return err.details.problems;
    }
  };

  assert.match(problemsOf({ cwd: closed }).join('\n'), new RegExp(`apps\\[0\\]\\.cwd: uid ${APP_USER} may not enter ${closed} \\(owner \\d+, group \\d+, mode 700\\); an app run as another user gets only a cwd that user may enter`));
  assert.match(problemsOf({ cwd: dir, out_file: '/etc/superd-never.log' }).join('\n'), new RegExp(`apps\\[0\\]\\.out_file: uid ${APP_USER} may not create files in /etc \\(owner 0, group 0, mode 755\\); an app run as another user writes only log files that user could`));
  assert.match(problemsOf({ cwd: dir, error_file: mine }).join('\n'), new RegExp(`apps\\[0\\]\\.error_file: uid ${APP_USER} may not write ${mine} \\(owner \\d+, group \\d+, mode 644\\)`));
  assert.match(problemsOf({ cwd: dir, out_file: path.join(closed, 'x.log') }).join('\n'), /apps\[0\]\.out_file: uid 65534 may not create files in .*closed/);

  // What the user may reach is accepted; so is all of it without uid (the daemon's own rights).
  assert.equal(load({ cwd: dir, out_file: theirs, error_file: theirs }).apps[0].uid, APP_USER);
  assert.equal(load({ cwd: closed, out_file: '/etc/superd-never.log', error_file: mine }, null).apps[0].uid, null);
});
