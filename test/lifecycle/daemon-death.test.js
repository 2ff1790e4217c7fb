// A daemon that dies (SIGKILL, the OOM killer, an upgrade's successor that ends it early)
// does not take the requests its cluster workers serve with it: they finish, then exit.
// One stuck in a loop is ended once its drain_timeout has passed, by the daemon's orphan
// reaper, or without it by the next daemon.
import test from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { sandbox, freePort, httpGet, alive, workerPids, groupPids, waitGone } from '../helpers/harness.js';
import { eventually } from '../helpers/wait.js';
import { heldRequest } from '../helpers/held-requests.js';

test('SIGKILL of the daemon: its cluster workers finish the requests they hold, then exit', async (t) => {
  const box = await sandbox(t);
  const port = await freePort();
  box.fixture('overload-lab.js');
  const eco = box.write('eco.yml', `
apps:
  - name: web
    script: overload-lab.js
    instances: 2
    drain_timeout: 20s
    env: { PORT: ${port} }
`);
  await box.start(eco);
  const daemon = box.daemonPid();
  const workers = await workerPids(daemon);
  assert.equal(workers.length, 2);
  // Four requests in flight (their headers came), each answered 1.5 s after it started.
  const held = await Promise.all(Array.from({ length: 4 }, () => heldRequest(port, 1500)));
  process.kill(daemon, 'SIGKILL');
  const answers = await Promise.all(held.map((h) => h.done));
  assert.deepEqual(answers, Array(4).fill({ status: 200, body: 'held\n', error: null }), 'every held request was answered in full');
  assert.deepEqual(await waitGone(workers, 15000), [], 'the workers exit once they have served what they held');
  for (const pid of workers) assert.deepEqual(groupPids(pid), [], `nothing left of group ${pid}`);
});

/** The orphan reaper of the daemon of `home` (lib/master/process/orphan-reaper.js). */
function reaperOf(home) {
  for (const name of fs.readdirSync('/proc').filter((n) => /^\d+$/.test(n))) {
    try {
      const argv = fs.readFileSync(`/proc/${name}/cmdline`, 'utf8').split('\0');
      if (argv[1]?.endsWith('/orphan-reaper.pl') && argv[2]?.startsWith(`${home}/worker-groups.`)) return Number(name);
    } catch {
      // gone meanwhile
    }
  }
  return null;
}

const stuckApp = (port) => `
apps:
  - name: web
    script: loop-lab.js
    instances: 1
    drain_timeout: 1s
    env: { PORT: ${port} }
`;

test('a worker stuck in a loop when its daemon died is ended by the orphan reaper after its drain_timeout, with no daemon started again', async (t) => {
  const box = await sandbox(t);
  const port = await freePort();
  box.fixture('loop-lab.js');
  await box.start(box.write('eco.yml', stuckApp(port)));
  const daemon = box.daemonPid();
  const [stuck] = await workerPids(daemon);
  const reaper = reaperOf(box.home);
  assert.ok(reaper, 'the daemon runs an orphan reaper');
  assert.ok(!(await workerPids(daemon)).includes(reaper), 'the reaper is not one of its children');
  assert.match((await httpGet(port, '/spin')).body, /spinning/);
  process.kill(daemon, 'SIGKILL');
  assert.deepEqual(await waitGone([stuck, reaper], 15000), [], 'the stuck worker was ended, and the reaper exited');
});

test('a clean exit of the daemon ends its orphan reaper', async (t) => {
  const box = await sandbox(t);
  box.fixture('loop-lab.js');
  await box.start(box.write('eco.yml', stuckApp(await freePort())));
  const reaper = reaperOf(box.home);
  assert.ok(reaper);
  const r = await box.cli(['kill']);
  assert.equal(r.code, 0, r.stderr);
  assert.deepEqual(await waitGone([reaper], 10000), []);
});

test('without its reaper, a worker stuck in a loop is ended by the next daemon after its drain_timeout', async (t) => {
  const box = await sandbox(t);
  const port = await freePort();
  box.fixture('loop-lab.js');
  const eco = box.write('eco.yml', stuckApp(port));
  await box.start(eco);
  const daemon = box.daemonPid();
  const [stuck] = await workerPids(daemon);
  assert.match((await httpGet(port, '/spin')).body, /spinning/);
  const reaper = reaperOf(box.home);
  assert.ok(reaper, 'the daemon runs an orphan reaper');
  process.kill(reaper, 'SIGKILL'); // killed with the daemon, as `kill -9 -1` by its user would
  process.kill(daemon, 'SIGKILL');
  await waitGone([daemon]);
  // It runs none of its own drain, its loop being stuck: still there, past its drain_timeout.
  await new Promise((r) => setTimeout(r, 1500));
  assert.ok(alive(stuck), 'a stuck worker does not exit by itself');

  await box.start(eco); // the next daemon
  assert.deepEqual(await waitGone([stuck], 15000), [], 'the next daemon ended it');
  const log = () => fs.readFileSync(path.join(box.home, 'daemon.log'), 'utf8');
  await eventually(() => log().includes('ended a process group a previous daemon left running'), { what: 'the daemon log line', last: log });
  assert.match(log(), new RegExp(`"pgid":${stuck}.*its group is ended in 1000 ms unless it exits`));
});
