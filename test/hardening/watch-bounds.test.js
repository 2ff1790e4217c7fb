// Issue 14, minor: watch does not follow symbolic links out of the watched tree (a link
// to /usr took the daemon to 1.5 GB), still watches a tree reached through a link (a
// `current` release link as cwd), and watches at most SUPER_WATCH_MAX_PATHS paths per app,
// saying so once when a tree has more.
import test from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { sandbox, watchEvents } from '../helpers/harness.js';

test('watch: links are not followed out of the tree, and the watched set is bounded', { timeout: 60000 }, async (t) => {
  const box = await sandbox(t);
  const real = path.join(box.dir, 'releases', 'r1');
  fs.mkdirSync(path.join(real, 'lib'), { recursive: true });
  fs.copyFileSync(path.join(import.meta.dirname, '..', 'fixtures', 'apps', 'idle.js'), path.join(real, 'idle.js'));
  fs.writeFileSync(path.join(real, 'lib', 'a.js'), '');
  fs.symlinkSync('/usr', path.join(real, 'usr')); // out of the tree: not followed
  fs.symlinkSync(real, path.join(box.dir, 'current'));
  const big = path.join(box.dir, 'big');
  fs.mkdirSync(big);
  for (let i = 0; i < 80; i++) fs.writeFileSync(path.join(big, `f${i}.js`), '');
  fs.copyFileSync(path.join(real, 'idle.js'), path.join(big, 'idle.js'));

  const env = { SUPER_WATCH_MAX_PATHS: '50' };
  box.fixture('idle.js');
  const idle = box.write('idle.yml', 'apps:\n  - name: idle\n    script: idle.js\n    ready_on: spawn\n');
  const first = await box.cli(['start', idle], { env });
  assert.equal(first.code, 0, first.stderr);
  const events = await watchEvents(box, t, ['watch']);

  const linked = box.write('linked.yml', `apps:\n  - name: linked\n    cwd: ${path.join(box.dir, 'current')}\n    script: idle.js\n    ready_on: spawn\n    watch: true\n`);
  assert.equal((await box.cli(['start', linked])).code, 0);
  const ready = await events.waitFor((e) => e.app === 'linked' && e.state !== 'reload', 30000, 'the linked tree watched');
  assert.equal(ready.state, 'ready', JSON.stringify(ready));
  assert.ok(ready.count >= 3 && ready.count < 20, `the release tree only, not /usr: ${ready.count} paths`);

  const many = box.write('big.yml', `apps:\n  - name: big\n    cwd: ${big}\n    script: idle.js\n    ready_on: spawn\n    watch: true\n`);
  assert.equal((await box.cli(['start', many])).code, 0);
  const bounded = await events.waitFor((e) => e.app === 'big' && e.state === 'error', 30000, 'the bound said');
  assert.match(bounded.error, /more than 50 paths to watch; the rest is not watched/);
  const bigReady = await events.waitFor((e) => e.app === 'big' && e.state === 'ready', 30000, 'big watched');
  assert.ok(bigReady.count <= 51, `at most the bound: ${bigReady.count}`);
  assert.equal(events.seen.filter((e) => e.app === 'big' && e.state === 'error').length, 1, 'said once');
});
