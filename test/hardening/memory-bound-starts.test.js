// Issue 36, item 6: a start never forks a worker the memory cannot hold, also when nothing
// else boots. The daemon runs in a real memory cgroup whose limit leaves room for a few
// workers of 48 MiB; a file asks 24. Before the fix the gate let a worker go "when nothing
// else boots", and the daemon forked until the group's OOM killer ran (the daemon itself
// among its victims where oom_score_adj cannot go below 0). Now the workers that do not
// fit are failed starts with their backoff, visible in `ls --json` (last_exit.error), and
// nothing in the group is OOM-killed. Needs root and cgroup v1's memory hierarchy.
import test from 'node:test';
import assert from 'node:assert/strict';
import { sandbox, lsJson } from '../helpers/harness.js';
import { memoryCgroup, memoryCgroupSkip } from '../helpers/memory-cgroup.js';

const MiB = 1024 * 1024;
const ASKED = 24;

test('workers that do not fit in memory are failed starts, never forks that take the daemon down', { skip: memoryCgroupSkip, timeout: 90000 }, async (t) => {
  const box = await sandbox(t);
  const group = memoryCgroup(t, 1024 * MiB);
  box.fixture('idle.js');
  box.fixture('memory-hog.cjs');
  const first = box.write('first.yml', 'apps:\n  - name: first\n    script: idle.js\n    ready_on: spawn\n');
  const started = await group.cli(box, ['start', first], 60000, { SUPER_START_CONCURRENCY: '2' });
  assert.equal(started.code, 0, started.out);
  const daemon = box.daemonPid();
  // Room for about 4 workers of 48 MiB (1.25 x each, 64 MiB kept for the daemon).
  group.limit(group.used() + 64 * MiB + 4 * 1.25 * 60 * MiB);

  const hogs = box.write('hogs.yml', 'apps:\n  - name: hogs\n    script: memory-hog.cjs\n    ready_on: ready\n    max_restarts: 2\n    min_uptime: 1s\n    env: { HOG_MB: "48" }\n');
  const one = await box.cli(['start', hogs]);
  assert.equal(one.code, 0, one.stdout + one.stderr);
  const r = await group.cli(box, ['scale', 'hogs', String(ASKED)]);
  assert.notEqual(r.code, 0, 'not every worker could start');
  assert.match(r.out, /could not start: not enough memory for another worker \(\d+ MiB available, \d+ MiB per worker, 64 MiB kept for the daemon\)/);

  const ls = await lsJson(box);
  assert.equal(box.daemonPid(), daemon);
  assert.equal(group.ooms(), 0, 'nothing in the daemon\'s group was OOM-killed');
  const workers = ls.apps.find((a) => a.name === 'hogs').workers;
  const online = workers.filter((w) => w.status === 'online');
  const refused = workers.filter((w) => /^not enough memory for another worker/.test(w.start_error ?? ''));
  t.diagnostic(`${online.length} of ${ASKED} workers online, ${refused.length} refused for memory`);
  assert.ok(online.length >= 1 && online.length < ASKED, `some workers run, not all (${online.length})`);
  assert.ok(refused.length >= 1, 'the refused starts say why in ls');
  assert.ok(refused.every((w) => w.pid === null || w.pid === undefined), 'a refused start forked nothing');
  assert.equal(ls.apps.find((a) => a.name === 'first').workers[0].status, 'online', 'the other app serves on');
  const text = await box.cli(['ls']);
  assert.match(text.stdout, /^hogs: \d+ slots could not start \(#\d+: not enough memory for another worker/m);
});
