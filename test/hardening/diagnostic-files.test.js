// Issue 27, item 2: root's `super profile --out` into a directory the profiled worker (a
// real second user, `uid:`) can write in. The worker plants a symbolic link to a root-only
// file where the CLI writes the flame graph; the CLI must not write through it: the
// command fails with a clear error and the file is untouched; with --force the link itself
// is replaced by a fresh file. An existing --out is refused before any worker is asked, and
// one that appears while the profile runs is kept.
// Needs root (useradd, uid:); skipped with the reason otherwise.
import test from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { sandbox, freePort } from '../helpers/harness.js';
import { testUser } from '../helpers/test-user.js';

const notRoot = process.getuid?.() !== 0 && 'needs root: creates a user whose worker plants links';
const SECRET = 'root-only secret\n';

test('root\'s profile --out next to a hostile worker of another user', { skip: notRoot, timeout: 60000 }, async (t) => {
  const box = await sandbox(t);
  const { name: user, uid } = testUser(t, 'sdp'); // deleted after the sandbox's cleanup ended its processes
  fs.chmodSync(box.dir, 0o755); // the user may enter, not write
  const secret = box.write('secret', SECRET);
  fs.chmodSync(secret, 0o600);
  const out = path.join(box.dir, 'user-out');
  fs.mkdirSync(out);
  fs.chownSync(out, uid, uid); // the worker's own directory
  box.fixture('squat-profile-names.js');
  const [port, port2] = [await freePort(), await freePort()];
  const app = (name, p, squat) => `  - name: ${name}\n    script: squat-profile-names.js\n    uid: ${user}\n    env: { PORT: ${p}, SQUAT: ${squat}, TARGET: ${secret} }\n`;
  const eco = box.write('eco.yml', `apps:\n${app('hostile', port, 'html')}${app('squatter', port2, 'profile')}`);
  await box.start(eco);
  const profile = (file, ...more) => box.cli(['profile', more.includes('squatter') ? 'squatter' : 'hostile', '--duration', '200ms', '--out', path.join(out, file), ...more.filter((m) => m !== 'squatter')]);

  await t.test('the link planted at <name>.html is not written through: a clear error, the file untouched', async () => {
    const r = await profile('p.cpuprofile');
    t.diagnostic(r.stderr.trim());
    assert.equal(r.code, 2, r.stderr);
    assert.match(r.stderr, /E_USAGE: .*p\.html exists; give another --out, or --force to replace it/);
    assert.equal(fs.readFileSync(secret, 'utf8'), SECRET, 'the root file behind the link is untouched');
    assert.ok(fs.lstatSync(path.join(out, 'p.html')).isSymbolicLink());
  });

  await t.test('an existing --out (or its .html) is refused before the worker is asked', async () => {
    const r = await profile('p.cpuprofile');
    assert.equal(r.code, 2, r.stderr);
    assert.match(r.stderr, /p\.cpuprofile exists; give another --out, or --force/);
    const h = await box.cli(['heap', 'hostile', '--out', path.join(out, 'p.html')]);
    assert.equal(h.code, 2, h.stderr);
    assert.match(h.stderr, /p\.html exists; give another --out, or --force/);
  });

  await t.test('--force does not replace the link (a regular file only), nor write through it', async () => {
    const refused = await profile('p.cpuprofile', '--force');
    assert.equal(refused.code, 2, refused.stderr);
    assert.match(refused.stderr, /E_USAGE: .*p\.html is a symbolic link; --force replaces only a regular file/);
    assert.equal(fs.readFileSync(secret, 'utf8'), SECRET);
    assert.ok(fs.lstatSync(path.join(out, 'p.html')).isSymbolicLink(), 'the link is left as it was');
  });

  await t.test('--force replaces a regular file by a fresh one', async () => {
    fs.rmSync(path.join(out, 'p.html'));
    fs.writeFileSync(path.join(out, 'p.html'), 'old\n');
    const r = await profile('p.cpuprofile', '--force');
    assert.equal(r.code, 0, r.stderr);
    assert.equal(fs.readFileSync(secret, 'utf8'), SECRET);
    const html = fs.lstatSync(path.join(out, 'p.html'));
    assert.ok(html.isFile() && html.uid === 0 && (html.mode & 0o777) === 0o600, 'a fresh root file, 0600');
    assert.match(fs.readFileSync(path.join(out, 'p.html'), 'utf8'), /<html/i);
    assert.deepEqual(fs.readdirSync(out).filter((n) => n.endsWith('.tmp')), [], 'no temp file left');
  });

  await t.test('a file that appears at --out while the profile runs is kept, not silently replaced', async () => {
    const r = await profile('q.cpuprofile', 'squatter');
    assert.equal(r.code, 2, r.stderr);
    assert.match(r.stderr, /E_USAGE: squatter#0: .*q\.cpuprofile appeared while it was being written, and is kept; --force replaces it/);
    assert.equal(fs.readFileSync(path.join(out, 'q.cpuprofile'), 'utf8'), 'squatted\n');
    assert.deepEqual(fs.readdirSync(out).filter((n) => n.startsWith('q.')), ['q.cpuprofile'], 'no .partial or .html left');
  });
});
