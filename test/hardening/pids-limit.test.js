// A cluster fork that fails (EAGAIN: the daemon's pids cgroup is full) is a failed start,
// retried with the crash-loop backoff, not a ghost "online" slot with no pid that nothing
// retries once the limit is raised. Real pids cgroup (v1, needs root): the daemon is
// started inside it, its limit is dropped, the worker is killed, then the limit is raised.
import test from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { eventually } from '../helpers/wait.js';
import { sandbox, SUPER } from '../helpers/harness.js';

const PIDS = '/sys/fs/cgroup/pids';
const skip = process.getuid() !== 0 ? 'needs root (cgroups)' : !fs.existsSync(path.join(PIDS, 'cgroup.procs')) ? `no cgroup v1 pids controller at ${PIDS}` : false;

test('a cluster fork refused by a pids limit is a failed start, retried until the limit is raised', { skip }, async (t) => {
  const cgroup = fs.mkdtempSync(path.join(PIDS, 'superd-test-'));
  // Registered before the sandbox: runs after its cleanup killed the daemon. Whatever is
  // left goes back to the root group, then the group goes.
  t.after(() => {
    for (const pid of fs.readFileSync(path.join(cgroup, 'cgroup.procs'), 'utf8').split('\n').filter(Boolean)) {
      try {
        fs.writeFileSync(path.join(PIDS, 'cgroup.procs'), pid);
      } catch {}
    }
    fs.rmdirSync(cgroup);
  });
  const box = await sandbox(t);
  box.fixture('idle.js');
  const eco = box.write('eco.yml', 'apps:\n  - name: web\n    script: idle.js\n    ready_on: spawn\n');
  // The CLI enters the group before it execs, so the daemon it starts is born there.
  const cli = spawn('sh', ['-c', 'echo $$ > "$0/cgroup.procs" && exec "$@"', cgroup, process.execPath, SUPER, 'start', eco], { env: { ...process.env, SUPER_HOME: box.home }, stdio: 'ignore' });
  assert.equal((await once(cli, 'exit'))[0], 0);
  const daemon = box.daemonPid();
  assert.ok(fs.readFileSync(path.join(cgroup, 'cgroup.procs'), 'utf8').split('\n').includes(String(daemon)), 'the daemon runs in the group');

  const client = await box.client();
  t.after(() => client.close());
  const slot = async () => (await client.request('describe', { app: 'web' })).app.workers[0];
  const first = await eventually(async () => ((await slot()).status === 'online' && (await slot()).pid), { what: 'the worker is online' });

  // No new task in the group from now on: the next fork gets EAGAIN.
  fs.writeFileSync(path.join(cgroup, 'pids.max'), '1');
  process.kill(first, 'SIGKILL');
  const failed = await eventually(async () => {
    const w = await slot();
    return /EAGAIN/.test(w.last_exit?.error ?? '') && w;
  }, { what: 'the slot reports the refused fork' });
  assert.equal(failed.pid, null);
  assert.notEqual(failed.status, 'online', 'no ghost online slot without a pid');
  const ls = (await client.request('ls')).apps[0].workers[0];
  assert.ok(['exited', 'starting'].includes(ls.status), `ls shows the failed start (${ls.status})`);

  fs.writeFileSync(path.join(cgroup, 'pids.max'), 'max');
  const back = await eventually(async () => {
    const w = await slot();
    return w.status === 'online' && w.pid && w;
  }, { what: 'the slot is back online once the limit is raised' });
  assert.notEqual(back.pid, first);
  assert.ok(back.restarts >= 2, `restarted after the refused fork(s) (${back.restarts})`);
});
