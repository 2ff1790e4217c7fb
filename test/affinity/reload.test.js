// Issue 5: a rolling reload puts slot i's replacement on slot i's CPUs (every thread), and a
// reload that changes cpu_affinity (or the daemon's own daemon.cpu_affinity) applies the new sets.
import test from 'node:test';
import assert from 'node:assert/strict';
import { sandbox, freePort, lsJson, describeJson } from '../helpers/harness.js';
import { ALLOWED, ALL, masksOf } from '../helpers/cpus.js';

const skip = ALLOWED.length < 2 ? 'needs at least 2 CPUs' : false;

test('masks survive a reload; a changed cpu_affinity applies at the reload', { skip }, async (t) => {
  const box = await sandbox(t);
  const port = await freePort();
  box.fixture('threads.js');
  const [a, b] = ALLOWED;
  const eco = (affinity, version) => `apps:\n  - name: web\n    script: threads.js\n    instances: 2\n    probation: 200ms\n    cpu_affinity: ${affinity}\n    env: { PORT: ${port}, VERSION: ${version} }\n`;
  const file = box.write('eco.yml', eco('spread', 'v1'));
  await box.start(file);
  const before = (await lsJson(box)).apps[0].workers;
  assert.deepEqual(before.map((w) => w.cpus), [String(a), String(b)]);

  box.write('eco.yml', eco('spread', 'v2'));
  const r = await box.cli(['reload', 'web']);
  assert.equal(r.code, 0, r.stdout + r.stderr);
  const after = (await lsJson(box)).apps[0].workers;
  after.forEach((w, i) => assert.notEqual(w.pid, before[i].pid, `slot ${i} was replaced`));
  assert.deepEqual(after.map((w) => [w.slot, w.cpus, w.pinned]), [[0, String(a), true], [1, String(b), true]]);
  assert.deepEqual(after.map((w) => masksOf(w.pid).masks), [[String(a)], [String(b)]], 'every thread of each replacement');

  // The slots swap CPUs: the reload applies the file's new sets.
  box.write('eco.yml', eco(`{ 0: ${b}, 1: ${a} }`, 'v3'));
  const r2 = await box.cli(['reload', 'web']);
  assert.equal(r2.code, 0, r2.stdout + r2.stderr);
  const swapped = (await lsJson(box)).apps[0].workers;
  assert.deepEqual(swapped.map((w) => w.cpus), [String(b), String(a)]);
  assert.deepEqual(swapped.map((w) => masksOf(w.pid).masks), [[String(b)], [String(a)]]);
});

test('a reload applies the file\'s daemon.cpu_affinity as start does, and refuses a CPU the daemon may not use', { skip }, async (t) => {
  const box = await sandbox(t);
  const port = await freePort();
  box.fixture('threads.js');
  const b = ALLOWED[1];
  const eco = (head, version) => `${head}apps:\n  - name: web\n    script: threads.js\n    probation: 200ms\n    env: { PORT: ${port}, VERSION: ${version} }\n`;
  const file = box.write('eco.yml', eco('', 'v1'));
  await box.start(file);
  assert.deepEqual(masksOf(box.daemonPid()).masks, [ALL], 'not pinned before');

  box.write('eco.yml', eco(`daemon:\n  cpu_affinity: ${b}\n`, 'v2'));
  const r = await box.cli(['reload', 'web']);
  assert.equal(r.code, 0, r.stdout + r.stderr);
  assert.deepEqual(masksOf(box.daemonPid()).masks, [String(b)], 'every thread of the daemon, pinned by the reload');
  assert.equal((await describeJson(box, 'web')).daemon_cpus, String(b));
  const web = (await lsJson(box)).apps[0].workers;
  assert.deepEqual(web.map((w) => [w.cpus, w.pinned]), [[ALL, false]]);
  assert.deepEqual(masksOf(web[0].pid).masks, [ALL], 'the replacement still gets every CPU');

  // As at start: a CPU outside the daemon's set is a config error with file:line; nothing changes.
  box.write('eco.yml', eco('daemon:\n  cpu_affinity: 4095\n', 'v3'));
  const bad = await box.cli(['reload', 'web']);
  assert.equal(bad.code, 2, bad.stdout + bad.stderr);
  assert.ok(bad.stderr.includes(`eco.yml:2:17: daemon.cpu_affinity: CPU 4095 is outside the CPUs the daemon may use (${ALL})`), bad.stderr);
  assert.deepEqual((await lsJson(box)).apps[0].workers.map((w) => w.pid), web.map((w) => w.pid), 'same worker');
  assert.deepEqual(masksOf(box.daemonPid()).masks, [String(b)], 'still pinned as before');
});
