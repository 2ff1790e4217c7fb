// Issue 14 item 4: SIGKILL of the daemon leaves nothing behind. A cluster worker whose
// event loop is blocked (while (true)), pinned (so exec'd through its group and taskset
// before node), and a fork-mode one, each with a `sleep` child in its process group, under
// scheduling: os (the worker itself holds its port). The fork-mode worker dies with the
// daemon (parent-death signal); the blocked cluster worker, which cannot drain, is ended by
// the daemon's orphan reaper once its drain_timeout has passed (issue 36: a cluster worker
// first serves what it holds); their children are ended by the next daemon of the
// same SUPER_HOME (recorded process groups), whose workers then serve on the same ports.
// Before that, `super ls` shows the blocked workers' loop p99 as stale.
import test from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { sandbox, freePort, httpGet, alive, waitGone, lsJson, signal } from '../helpers/harness.js';
import { ALLOWED } from '../helpers/cpus.js';
import { renderLs } from '../../lib/ctl/render-ls.js';

/** The {worker, sleep} pids each worker wrote. */
const treesOf = (pidsDir) => fs.readdirSync(pidsDir).map((f) => JSON.parse(fs.readFileSync(path.join(pidsDir, f), 'utf8')));

test('SIGKILL of the daemon: blocked workers do not outlive it for long, their children go at the next start, which serves the same ports', { timeout: 90000 }, async (t) => {
  const box = await sandbox(t);
  const ports = [await freePort(), await freePort()];
  const pidsDir = path.join(box.dir, 'pids');
  fs.mkdirSync(pidsDir);
  box.fixture('blocked-tree.cjs');
  const eco = box.write('eco.yml', `scheduling: os\nmetrics: { interval: 200ms }\napps:\n`
    + `  - name: tree\n    script: blocked-tree.cjs\n    ready_on: ready\n    drain_timeout: 1s\n    cpu_affinity: ${ALLOWED[0]}\n    env: { PORT: ${ports[0]}, PIDS_DIR: ${pidsDir} }\n`
    + `  - name: forked\n    script: blocked-tree.cjs\n    exec_mode: fork\n    ready_on: ready\n    env: { PORT: ${ports[1]}, PIDS_DIR: ${pidsDir} }\n`);
  // Started in-process (the CLI's own launch code and request): the CLI's output is not under test.
  await box.start(eco);
  const trees = treesOf(pidsDir);
  assert.equal(trees.length, 2);
  const everyPid = trees.flatMap((tr) => [tr.worker, tr.sleep]);
  // What the daemon does not end is no longer the sandbox's to find: end it here.
  t.after(() => everyPid.forEach((pid) => signal(pid, 'SIGKILL')));
  // Each worker's agent has reported its loop once; then both block.
  const workersWhen = async (pred) => {
    let workers = [];
    for (let i = 0; i < 600 && !(workers.length === 2 && workers.every(pred)); i++) {
      if (i) await new Promise((r) => setTimeout(r, 50));
      workers = (await lsJson(box)).apps.flatMap((a) => a.workers);
    }
    return workers;
  };
  assert.ok((await workersWhen((w) => w.metrics?.loop_delay_ms)).every((w) => w.metrics?.loop_delay_ms), 'both reported');
  for (const port of ports) assert.equal((await httpGet(port, '/block')).body, 'blocking\n');

  // Blocked, they report no more: ls shows their loop p99 as stale, not the last value.
  const workers = await workersWhen((w) => w.metrics?.loop_stale);
  assert.deepEqual(workers.map((w) => w.metrics?.loop_stale), [true, true], 'both reports went stale');
  // `super ls`'s table, rendered in-process by the CLI's own renderer: the blocked workers
  // spin a core each until the daemon dies, so no CLI start-up is paid meanwhile.
  const client = await box.client();
  const table = renderLs(await client.request('ls'));
  client.close();
  assert.equal(table.split('\n').filter((line) => /online .* stale$/.test(line)).length, 2, table);

  const daemon = box.daemonPid();
  process.kill(daemon, 'SIGKILL');
  assert.deepEqual(await waitGone([daemon, ...trees.map((tr) => tr.worker)], 20000), [], 'the workers are gone: the fork-mode one with the daemon, the blocked cluster one by the orphan reaper');
  fs.rmSync(pidsDir, { recursive: true });
  fs.mkdirSync(pidsDir);

  await box.start(eco); // launches the next daemon, as `super start` does
  assert.deepEqual(await waitGone(trees.map((tr) => tr.sleep), 20000), [], 'the next daemon ended what the workers had started');
  for (const port of ports) assert.equal((await httpGet(port)).body, 'ok\n', `a new worker serves on ${port}`);
  assert.match(fs.readFileSync(path.join(box.home, 'daemon.log'), 'utf8'), /ended a process group a previous daemon left running/);
  assert.ok(!trees.some((tr) => alive(tr.worker)));
});
