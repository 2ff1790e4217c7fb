// Issue 36, critical 1: an app's user must not reach the root daemon through a file it owns.
// An app runs as a second, real user with `script:` a directory that user owns; the daemon
// reads the directory's package.json to find the entry. The user puts /dev/zero (a link),
// a FIFO, a huge file, or a link to a file only root may read at that name: each `super
// reload` and `super check` is refused at once with a coded problem line, the daemon keeps
// answering (its memory bounded: it runs in a memory cgroup, so a read without bound ends in
// that group's OOM kill, not the machine's) and the running worker is untouched.
// Needs root (useradd, uid:) and cgroup v1's memory hierarchy; skipped otherwise.
import test from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { execFileSync } from 'node:child_process';
import { sandbox, lsJson } from '../helpers/harness.js';
import { testUser } from '../helpers/test-user.js';
import { memoryCgroup, memoryCgroupSkip } from '../helpers/memory-cgroup.js';

const MiB = 1024 * 1024;
const skip = (process.getuid?.() !== 0 && 'needs root: creates a user and runs an app as it') || memoryCgroupSkip;

/** Peak resident memory of a process, in bytes. */
const peakRss = (pid) => Number(/^VmHWM:\s+(\d+) kB$/m.exec(fs.readFileSync(`/proc/${pid}/status`, 'utf8'))[1]) * 1024;

test('an app\'s user cannot take the daemon down through its package.json', { skip, timeout: 90000 }, async (t) => {
  const box = await sandbox(t);
  const { name: user, uid, gid } = testUser(t, 'sdf'); // deleted after the sandbox's cleanup ended its processes
  const group = memoryCgroup(t, 768 * MiB);
  fs.chmodSync(box.dir, 0o755);
  const app = path.join(box.dir, 'app');
  fs.mkdirSync(app);
  const own = (p) => fs.lchownSync(p, uid, gid);
  const pkg = path.join(app, 'package.json');
  fs.writeFileSync(pkg, '{"main": "server.js"}\n');
  fs.copyFileSync(path.join(import.meta.dirname, '..', 'fixtures', 'apps', 'idle.js'), path.join(app, 'server.js'));
  for (const p of [app, pkg, path.join(app, 'server.js')]) own(p);
  const secret = box.write('root-only.json', '{"main": "server.js"}\n');
  fs.chmodSync(secret, 0o600);
  const eco = box.write('eco.yml', `apps:\n  - name: web\n    script: ${app}\n    uid: ${user}\n    ready_on: spawn\n`);

  const started = await group.cli(box, ['start', eco]);
  assert.equal(started.code, 0, started.out);
  const daemon = box.daemonPid();
  const [worker] = (await lsJson(box)).apps[0].workers.map((w) => w.pid);

  /** What the app's user does to its package.json: whatever was there goes first. */
  const plant = (make) => {
    fs.rmSync(pkg, { force: true });
    make();
    own(pkg);
  };
  const attacks = [
    ['a link to /dev/zero', () => fs.symlinkSync('/dev/zero', pkg), /package\.json \(ENOTREG\): is a character device/],
    ['a FIFO', () => execFileSync('mkfifo', [pkg]), /package\.json \(ENOTREG\): is a FIFO/],
    ['a huge file', () => fs.writeFileSync(pkg, Buffer.alloc(8 * MiB, ' ')), /package\.json \(EFBIG\): is 8388608 bytes/],
    ['a link to a file only root may read', () => fs.symlinkSync(secret, pkg), /package\.json \(EACCES\): .*root-only\.json is not readable by/],
  ];
  for (const [what, make, refusal] of /** @type {[string, () => void, RegExp][]} */ (attacks)) {
    await t.test(what, async () => {
      plant(make);
      const reload = await box.cli(['reload', 'web'], { timeout: 30000 });
      assert.equal(reload.code, 2, reload.stdout + reload.stderr);
      assert.match(reload.stderr, /E_CONFIG: 1 problem in .*eco\.yml/);
      assert.match(reload.stderr, refusal);
      // The CLI reads the file as root too (in the group: without a bound, its OOM kill is the group's).
      const check = await group.cli(box, ['check', eco], 30000);
      assert.equal(check.code, 2, check.out);
      assert.match(check.out, refusal);
      // The daemon answers, its app serves on, and its memory never ran away.
      const ls = await lsJson(box);
      assert.deepEqual(ls.apps[0].workers.map((w) => [w.pid, w.status]), [[worker, 'online']]);
      assert.equal(box.daemonPid(), daemon);
      assert.ok(peakRss(daemon) < 400 * MiB, `daemon peak RSS ${peakRss(daemon)} bytes`);
      assert.equal(group.ooms(), 0, 'nothing in the daemon\'s group was OOM-killed');
    });
  }

  // Its own file again: the reload goes through.
  plant(() => fs.writeFileSync(pkg, '{"main": "server.js"}\n'));
  const reload = await box.cli(['reload', 'web']);
  assert.equal(reload.code, 0, reload.stdout + reload.stderr);
});
