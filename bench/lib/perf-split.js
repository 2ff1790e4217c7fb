// Where a target's CPU goes, kernel included: Linux perf's software clock (`perf record -e
// cpu-clock`, no hardware counters needed, so it runs in a VM) sampled on the primary and
// its workers during a window, then summed per process role and per object the sample
// landed in. V8's profiler (--profile) names JavaScript functions but cannot see the time
// a process spends in the kernel; this split can, and says whether two targets differ in
// their system calls' work or in their own code.
import { spawn, execFileSync } from 'node:child_process';

const HZ = 4000; // samples a second per CPU: 250 µs each

/** The object class of a perf `dso` column: kernel, node (the binary), JIT (V8's code), libc, other. */
function dsoClass(dso) {
  if (dso.includes('kernel')) return 'kernel';
  if (dso.startsWith('[JIT]')) return 'JIT';
  if (dso === 'node') return 'node';
  if (dso.startsWith('libc.')) return 'libc';
  return 'other';
}

/**
 * Samples `pids` (a primary and its workers) for `seconds`; resolves once perf has written `file`.
 * @param {string} file  perf's data file
 * @param {number[]} pids
 * @param {number} seconds
 * @returns {Promise<void>}
 */
export function perfRecord(file, pids, seconds) {
  const perf = spawn('perf', ['record', '-q', '-e', 'cpu-clock', '-F', String(HZ), '-o', file, '-p', pids.join(','), '--', 'sleep', String(seconds)], { stdio: 'ignore' });
  return new Promise((resolve, reject) => {
    perf.once('error', reject);
    perf.once('exit', (code) => (code === 0 ? resolve() : reject(new Error(`perf record exited ${code}`))));
  });
}

/**
 * What `file` sampled, in µs of CPU per connection: {primary: {kernel, node, JIT, libc, other, total}, workers: {...}}.
 * @param {string} file  @param {number} primaryPid  @param {number} connections  served while it sampled
 */
export function perfSplit(file, primaryPid, connections) {
  const out = execFileSync('perf', ['report', '-i', file, '--stdio', '--sort', 'pid,dso', '-n'], { encoding: 'utf8', maxBuffer: 16 << 20, stdio: ['ignore', 'pipe', 'ignore'] });
  const zero = () => ({ kernel: 0, node: 0, JIT: 0, libc: 0, other: 0, total: 0 });
  const roles = { primary: zero(), workers: zero() };
  // "    16.46%    19070:node     node" : percent, samples, pid:comm, dso (may hold spaces)
  for (const line of out.split('\n')) {
    const m = /^\s*[\d.]+%\s+(\d+)\s+(\d+):\S*\s+(.+?)\s*$/.exec(line);
    if (!m) continue;
    const us = (Number(m[1]) * 1e6) / HZ / connections;
    const role = Number(m[2]) === primaryPid ? roles.primary : roles.workers;
    role[dsoClass(m[3])] += us;
    role.total += us;
  }
  return roles;
}

/** perf can sample here (installed, and the kernel lets it): else the reason. */
export function perfUnavailable() {
  try {
    execFileSync('perf', ['record', '-q', '-e', 'cpu-clock', '-o', '/dev/null', '--', 'true'], { stdio: 'ignore' });
    return null;
  } catch (err) {
    return err.code === 'ENOENT' ? 'perf is not installed (Debian: linux-perf)' : `perf cannot sample here (${err.message.split('\n')[0]})`;
  }
}
