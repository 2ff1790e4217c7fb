// Numeric ids (`super logs 3`, `super stop 2`) name the same app after `super upgrade` and
// after `save` + `kill` + `resurrect`, even when deletes left gaps (it was web 4 -> 0).
import test from 'node:test';
import assert from 'node:assert/strict';
import path from 'node:path';
import { sandbox, lsJson } from '../helpers/harness.js';
import { request } from '../helpers/requests.js';

test('ids survive upgrade and resurrect, gaps included', async (t) => {
  const box = await sandbox(t);
  box.write('idle.js', 'setInterval(() => {}, 1000);\n');
  const names = ['a', 'b', 'c', 'd'];
  const file = box.write('eco.yml', `apps:\n${names.map((n) => `  - { name: ${n}, script: idle.js, exec_mode: fork }\n`).join('')}`);
  await box.start(file);
  // Setup and the save in-process (no CLI start-up): what is under test is the ids.
  await request(box, 'delete', { target: ['a', 'c'] });
  const ids = async () => Object.fromEntries((await lsJson(box)).apps.map((a) => [a.name, a.workers[0]?.id ?? a.id]));
  const before = await ids();
  assert.deepEqual(before, { b: 1, d: 3 });

  const up = await box.cli(['upgrade']);
  assert.equal(up.code, 0, up.stderr);
  assert.deepEqual(await ids(), before, 'after upgrade');

  await request(box, 'save');
  assert.equal((await box.cli(['kill'])).code, 0);
  const back = await box.cli(['resurrect']);
  assert.equal(back.code, 0, back.stderr);
  assert.deepEqual(await ids(), before, 'after resurrect');
  // A new app takes the next id, never one held.
  box.write('more.yml', 'apps:\n  - { name: e, script: idle.js, exec_mode: fork }\n');
  await box.start(path.join(box.dir, 'more.yml'));
  assert.equal((await ids()).e, 4);
  assert.match((await box.cli(['describe', '3'])).stdout, /^d: online/);
});
