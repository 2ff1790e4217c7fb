// Issue 27, item 4: a daemon in a small memory cgroup (a container, systemd's MemoryMax=).
// The daemon is started inside a real cgroup v1 memory group; once its app runs, the
// group's limit is set to what it uses plus 100 MiB. The memory guard must see the
// cgroup's room (not the host's MemAvailable of gigabytes) and shrink a surge reload's
// batch, and a worker's heap snapshot must be refused when it would not fit; and the
// daemon must be the OOM killer's last choice (oom_score_adj -900) while its workers are
// back at 0. Needs root and cgroup v1's memory hierarchy; skipped otherwise.
import test from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { sandbox, freePort, lsJson } from '../helpers/harness.js';
import { removeCgroup } from '../helpers/memory-cgroup.js';
import { superInCgroup } from '../helpers/cgroup.js';

const V1 = '/sys/fs/cgroup/memory';
const MiB = 1024 * 1024;
const ROOM = 100 * MiB; // less than the guard's 64 MiB reserve + 1.25 x a worker's RSS

const skip = (process.getuid?.() !== 0 && 'writing a cgroup needs root')
  || (!fs.existsSync(path.join(V1, 'cgroup.procs')) && `no cgroup v1 memory hierarchy at ${V1}`);

/** The group's usage, inactive page cache left out (what the daemon computes too). */
function used(dir) {
  const usage = Number(fs.readFileSync(path.join(dir, 'memory.usage_in_bytes'), 'utf8'));
  const inactive = /^total_inactive_file (\d+)$/m.exec(fs.readFileSync(path.join(dir, 'memory.stat'), 'utf8'));
  return usage - Number(inactive?.[1] ?? 0);
}

/** Whether this process may lower an oom_score_adj (CAP_SYS_RESOURCE, bit 24, in CapEff). */
const canLower = () => ((BigInt(`0x${/^CapEff:\s+(\w+)$/m.exec(fs.readFileSync('/proc/self/status', 'utf8'))[1]}`) >> 24n) & 1n) === 1n;

const adj = (pid) => Number(fs.readFileSync(`/proc/${pid}/oom_score_adj`, 'utf8'));

test('in a small memory cgroup: the guard counts the cgroup\'s room, and the OOM killer takes workers before the daemon', { skip, timeout: 90000 }, async (t) => {
  const box = await sandbox(t);
  const dir = path.join(V1, `superd-test-${process.pid}-${Date.now()}`);
  fs.mkdirSync(dir);
  t.after(() => removeCgroup(dir)); // registered after the sandbox's cleanup: runs once its processes are gone
  fs.writeFileSync(path.join(dir, 'memory.limit_in_bytes'), String(1024 * MiB));

  box.fixture('http-server.js');
  const port = await freePort();
  const eco = box.write('eco.yml', `apps:
  - name: web
    script: http-server.js
    instances: 2
    reload_strategy: surge
    env: { PORT: ${port} }
`);
  const started = await superInCgroup(box, dir, ['start', eco]);
  assert.equal(started.code, 0, started.out);
  const daemon = box.daemonPid();
  const inGroup = fs.readFileSync(path.join(dir, 'cgroup.procs'), 'utf8').split('\n').map(Number);
  assert.ok(inGroup.includes(daemon), `the daemon (${daemon}) runs in ${dir}`);
  const workers = (await lsJson(box)).apps[0].workers.map((w) => w.pid);

  if (canLower()) {
    assert.equal(adj(daemon), -900, 'the daemon is the OOM killer\'s last choice');
  } else {
    // Root without CAP_SYS_RESOURCE (some containers, this test's own machine) cannot lower it.
    t.diagnostic('no CAP_SYS_RESOURCE here: the daemon keeps its value and says so');
    assert.equal(adj(daemon), adj(process.pid));
    assert.match(fs.readFileSync(path.join(box.home, 'daemon.log'), 'utf8'), /oom_score_adj stays \d+: lowering it needs root with CAP_SYS_RESOURCE/);
  }
  for (const pid of workers) assert.equal(adj(pid), 0, `worker ${pid} is set back to 0`);

  fs.writeFileSync(path.join(dir, 'memory.limit_in_bytes'), String(used(dir) + ROOM));
  const r = await superInCgroup(box, dir, ['reload', 'web']);
  assert.equal(r.code, 0, r.out);
  const shrunk = /^web: memory guard: batch shrunk from 2 to 1 replacement beside the old workers \(available (\d+) MiB, \d+ MiB per worker\)$/m.exec(r.out);
  assert.ok(shrunk, `the guard saw the cgroup's room, not the host's:\n${r.out}`);
  t.diagnostic(shrunk[0]);
  assert.ok(Number(shrunk[1]) <= 2 * ROOM / MiB, `available ${shrunk[1]} MiB is the cgroup's room`);
  const replaced = (await lsJson(box)).apps[0].workers.map((w) => w.pid);
  for (const pid of replaced) assert.equal(adj(pid), 0, `replacement ${pid} is set back to 0`);

  // A worker's heap snapshot (a few MB here) counts the cgroup's room too: 1 MiB is too little.
  fs.writeFileSync(path.join(dir, 'memory.limit_in_bytes'), String(used(dir) + MiB));
  const heap = await box.cli(['heap', 'web#0']);
  assert.equal(heap.code, 1, heap.stderr);
  // The room is read a moment after the limit is set: what the group frees meanwhile (a
  // page cache, a worker's garbage) adds to it, a few MB at most.
  const low = /E_LOW_MEMORY: web#0: a heap snapshot of this worker needs about (\d+) MB of free memory and (\d+) MB is available/.exec(heap.stderr);
  assert.ok(low, heap.stderr);
  assert.ok(Number(low[2]) < Number(low[1]) && Number(low[2]) <= 4, `the cgroup's room, not the host's: ${low[0]}`);
});
