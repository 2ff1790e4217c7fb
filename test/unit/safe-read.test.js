// lib/safe-read.js, the one reader of files another party may control: whatever is put at
// the name (a FIFO, a link to /dev/zero, a file over the bound, a link where none may be,
// a link to what the path's owner may not read), the read ends at once with a coded refusal.
import test from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { execFileSync } from 'node:child_process';
import { readFileSafe, readFileSafeSync, openSafe, UnsafeFileError } from '../../lib/safe-read.js';

const isRoot = process.getuid?.() === 0;

test('safe-read: only a regular file, bounded, never blocking', async (t) => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'sd-read-'));
  t.after(() => fs.rmSync(dir, { recursive: true, force: true }));
  const at = (name) => path.join(dir, name);
  fs.writeFileSync(at('ok.json'), '{"main": "x.js"}');
  execFileSync('mkfifo', [at('fifo')]);
  fs.symlinkSync('/dev/zero', at('zero'));
  fs.writeFileSync(at('big'), Buffer.alloc(4096, 'x'));
  fs.symlinkSync(at('ok.json'), at('link.json'));
  const refused = (code, re) => (/** @type {any} */ err) => err instanceof UnsafeFileError && err.code === code && re.test(err.message);

  for (const read of [readFileSafeSync, readFileSafe]) {
    assert.equal((await read(at('ok.json'), { max: 100 })).toString(), '{"main": "x.js"}');
    await assert.rejects(async () => read(at('fifo'), { max: 100 }), refused('ENOTREG', /fifo: is a FIFO, not a regular file/));
    await assert.rejects(async () => read(at('zero'), { max: 100 }), refused('ENOTREG', /zero: is a character device/));
    await assert.rejects(async () => read(dir, { max: 100 }), refused('ENOTREG', /is a directory/));
    await assert.rejects(async () => read(at('big'), { max: 100 }), refused('EFBIG', /big: is 4096 bytes, more than the 100 read here/));
    assert.equal((await read(at('big'), { max: 100, head: true })).length, 100, 'head: the first bytes only');
    assert.equal((await read(at('link.json'), { max: 100 })).length, 16, 'a link is followed by default');
    await assert.rejects(async () => read(at('link.json'), { max: 100, follow: false }), refused('ELOOP', /is a symbolic link/));
    await assert.rejects(async () => read(at('gone'), { max: 100 }), { code: 'ENOENT' });
  }
  const fh = await openSafe(at('ok.json'), { follow: false });
  assert.equal((await fh.readFile('utf8')).length, 16);
  await fh.close();
  await assert.rejects(openSafe(at('fifo'), {}), refused('ENOTREG', /FIFO/));
});

test('safe-read as root: a path another user controls is read with that user\'s rights', { skip: !isRoot && 'needs root: chowns to another user' }, async (t) => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'sd-read-'));
  t.after(() => fs.rmSync(dir, { recursive: true, force: true }));
  fs.chmodSync(dir, 0o755);
  const secret = path.join(dir, 'secret.json');
  fs.writeFileSync(secret, '{}');
  fs.chmodSync(secret, 0o600);
  const theirs = path.join(dir, 'theirs');
  fs.mkdirSync(theirs);
  fs.chownSync(theirs, 65534, 65534);
  // The user's link to root's file: it could never read it, so neither does superd for it.
  fs.symlinkSync(secret, path.join(theirs, 'package.json'));
  await assert.rejects(readFileSafe(path.join(theirs, 'package.json'), { max: 100 }), { code: 'EACCES', message: /secret\.json is not readable by uid 65534/ });
  // The app's user (as) counts even where the path is root's.
  assert.throws(() => readFileSafeSync(secret, { max: 100, as: { uid: 65534, gid: 65534 } }), { code: 'EACCES', message: /the app's user \(uid 65534\)/ });
  assert.equal(readFileSafeSync(secret, { max: 100 }).toString(), '{}', 'root\'s own path: root\'s rights');
  // Its own readable file in its own directory: read.
  fs.writeFileSync(path.join(theirs, 'own.json'), '{}');
  assert.equal(readFileSafeSync(path.join(theirs, 'own.json'), { max: 100 }).toString(), '{}');
});
