// An idle log follower (lib/logs/follow.js) does not poll its files ten times a second: it
// backs off to one read a second and an inotify watch wakes it at the next line.
import test from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { LogFollower } from '../../lib/logs/follow.js';

test('an idle follower reads about once a second, and its watch wakes it at a new line', async (t) => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'superd-follow-idle-'));
  t.after(() => fs.rmSync(dir, { recursive: true, force: true }));
  const file = path.join(dir, 'app-out.log');
  fs.writeFileSync(file, 'before\n');
  const items = [];
  let arrived = null;
  const sink = { send: (d) => { items.push(d); arrived?.(); }, backlog: () => 0, open: () => true };
  let ticks = 0;
  const follower = new LogFollower({ sink, files: () => { ticks++; return [{ app: 'a', slot: null, stream: 'out', path: file }]; } });
  t.after(() => follower.stop());
  await follower.start();
  follower.run();

  // Idle for 2 s: 20 ticks at a fixed 100 ms; backing off (100, 200, 400, 800, 1000 ms...) about 5.
  await new Promise((resolve) => setTimeout(resolve, 2000));
  assert.ok(ticks <= 7, `${ticks} reads of an idle file in 2 s`);

  // Idle, it watches the file. Its next timed read (up to 1 s away) is cancelled here: the
  // line can only come through the watch's wake, so it arriving shows the watch works
  // (a figure for "at once" would be the machine's speed).
  assert.equal(follower.watchers.size, 1, 'the idle file is watched');
  clearTimeout(follower.timer);
  let bound;
  const got = new Promise((resolve, reject) => {
    arrived = resolve;
    bound = setTimeout(() => reject(new Error(`the line never came (${ticks} reads)`)), 10000); // it holds the loop: the watch does not
  });
  fs.appendFileSync(file, 'after\n');
  await got.finally(() => clearTimeout(bound));
  assert.deepEqual(items, [{ app: 'a', slot: null, stream: 'out', text: 'after\n' }]);
});
