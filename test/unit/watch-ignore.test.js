// Issue 16: ignore_watch patterns are globs as chokidar's ecosystem reads them (picomatch):
// braces and character classes, which the hand-written matcher before it missed.
import test from 'node:test';
import assert from 'node:assert/strict';
import { makeIgnore } from '../../lib/master/watch/watch-ignore.js';

test('ignore_watch: braces, classes, ? and ** as picomatch reads them', () => {
  const ig = makeIgnore({ roots: ['/a'], patterns: ['*.{tmp,bak}', '[ab].txt', 'cache/**/*.json', 'v?.js', 'dist/**'] });
  const yes = ['/a/x.tmp', '/a/src/y.bak', '/a/a.txt', '/a/sub/b.txt', '/a/cache/x.json', '/a/cache/d/e/f.json', '/a/v1.js', '/a/dist/x/y.js', '/a/.hidden.tmp', '/a/node_modules/m.js'];
  const no = ['/a/x.tmpl', '/a/x.bak.js', '/a/c.txt', '/a/ab.txt', '/a/cache/x.js', '/a/v10.js', '/a/src/dist.js', '/a/x.js'];
  for (const p of yes) assert.equal(ig(p), true, `${p} is ignored`);
  for (const p of no) assert.equal(ig(p), false, `${p} is watched`);
});
