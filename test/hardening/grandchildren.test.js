// Issue 7: apps cannot take the daemon down, nor leave processes behind. A worker that
// started a process tree (a `sleep`, and a Node child that ignores SIGINT and has a
// `sleep` of its own; none detached) and crashes: the whole tree goes with it, and after
// `super stop` nothing of the app's replacement tree remains (lib/master/process/process-group.js).
import test from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { sandbox, freePort, httpGet, lsJson, alive, groupPids, watchEvents, waitGone } from '../helpers/harness.js';

/** The worker's tree as the fixture wrote it: [worker, sleep, node, node's sleep]. */
function tree(dir, worker) {
  const p = JSON.parse(fs.readFileSync(path.join(dir, `${worker}.json`), 'utf8'));
  return [worker, p.sleep, p.node, p.nodeSleep];
}

test('a crashing worker takes its grandchildren with it; stop leaves no process of the app', async (t) => {
  const box = await sandbox(t);
  const port = await freePort();
  const pidsDir = path.join(box.dir, 'pids');
  fs.mkdirSync(pidsDir);
  box.fixture('grandchildren.js');
  // kill_timeout: the SIGINT-immune child is SIGKILLed this long after the crash
  const eco = box.write('eco.yml', `apps:\n  - name: tree\n    script: grandchildren.js\n    kill_timeout: 500ms\n    env: { PORT: ${port}, PIDS_DIR: ${pidsDir} }\n`);
  assert.equal((await box.cli(['start', eco])).code, 0);
  const ev = await watchEvents(box, t);
  // If reaping fails, the orphans are no longer the daemon's children, which is all the
  // sandbox's cleanup kills: kill what is left in the workers' groups here.
  const groups = [];
  t.after(() => {
    for (const p of groups.flatMap(groupPids)) {
      try {
        process.kill(p, 'SIGKILL');
      } catch {}
    }
  });
  const [w] = (await lsJson(box)).apps[0].workers;
  groups.push(w.pid);
  const first = tree(pidsDir, w.pid);
  assert.ok(first.every(alive), `the tree runs: ${first}`);
  assert.deepEqual(groupPids(w.pid).sort(), [...first].sort(), 'all four in the worker\'s process group');

  await httpGet(port, '/crash').catch(() => {}); // the worker may die before it answers
  const exited = await ev.waitFor((e) => e.state === 'exited', 30000, 'the crash'); // its pid is gone by then
  assert.equal(exited.code, 1);
  assert.deepEqual(await waitGone(first, 30000), [], 'no orphan outlives the crashed worker');

  const back = await ev.waitFor((e) => e.state === 'online' && e.pid !== w.pid, 30000, 'the replacement');
  groups.push(back.pid);
  const second = tree(pidsDir, back.pid);
  assert.ok(second.every(alive), `the replacement's tree runs: ${second}`);
  assert.equal((await box.cli(['stop', 'tree'])).code, 0);
  assert.deepEqual(await waitGone(second, 30000), [], 'stop leaves no process of the tree');
  assert.deepEqual(groupPids(back.pid), [], 'the process group is empty');
  assert.equal((await lsJson(box)).apps[0].workers[0].status, 'stopped');
});
