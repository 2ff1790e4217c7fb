// Issue 14, minor: `super stop` ends what a worker started outside its process group (a
// `sleep` spawned with detached: true, in a session of its own) as well as what stayed
// in it; `super kill` (the daemon's own stop) too.
import test from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { sandbox, waitGone, lsJson } from '../helpers/harness.js';

const treesOf = (dir) => fs.readdirSync(dir).map((f) => JSON.parse(fs.readFileSync(path.join(dir, f), 'utf8')));

test('stop and kill end a worker\'s detached children too', { timeout: 60000 }, async (t) => {
  const box = await sandbox(t);
  const pidsDir = path.join(box.dir, 'pids');
  fs.mkdirSync(pidsDir);
  box.fixture('detached-child.cjs');
  const eco = box.write('eco.yml', `apps:\n  - name: tree\n    script: detached-child.cjs\n    ready_on: ready\n    kill_timeout: 500ms\n    env: { PIDS_DIR: ${pidsDir} }\n`
    + `  - name: forked\n    script: detached-child.cjs\n    exec_mode: fork\n    ready_on: ready\n    kill_timeout: 500ms\n    env: { PIDS_DIR: ${pidsDir} }\n`);
  assert.equal((await box.cli(['start', eco])).code, 0);
  const trees = treesOf(pidsDir);
  assert.equal(trees.length, 2);
  const all = trees.flatMap((tr) => [tr.worker, tr.detached, tr.attached]);
  // A detached process is not the sandbox's to find: end what is left here.
  t.after(() => {
    for (const pid of all) {
      try {
        process.kill(pid, 'SIGKILL');
      } catch {}
    }
  });
  const treePid = (await lsJson(box)).apps.find((a) => a.name === 'tree').workers[0].pid;
  const tree = trees.find((tr) => tr.worker === treePid);

  assert.equal((await box.cli(['stop', 'tree'])).code, 0);
  assert.deepEqual(await waitGone([tree.worker, tree.detached, tree.attached], 10000), [], 'stop ended the worker, its group and its detached child');
  assert.equal((await box.cli(['kill'])).code, 0);
  assert.deepEqual(await waitGone(all, 10000), [], 'the daemon\'s stop ended the other app\'s too');
});
