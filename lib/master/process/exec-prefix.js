// Small util-linux programs that a worker is exec'd through, found once at boot.
//  - setsid: each worker leads its own process group, so stopping it reaches every
//    process it started (no orphans), with one kill(-pgid).
//  - setpriv --pdeathsig KILL (fork-mode children): the kernel kills the child when the
//    daemon dies, whatever it is doing. The signal is set by setpriv, after setsid and
//    before taskset and the program, and survives their execs (it is cleared only by a
//    fork, or the exec of a set-user-ID program). The child's own children do not get it:
//    the next daemon ends their groups (group-record.js). Cluster workers go without it:
//    they finish what they serve first (lib/worker/drain.cjs outliveDaemon), and the next
//    daemon ends one stuck in a loop once its drain_timeout has passed.
//  - taskset -c <cpus> (workers with cpu_affinity): sets the CPU mask before the program
//    starts, so every thread it ever creates (libuv pool, worker_threads) inherits it.
// All exec in place (same pid). Where setsid/setpriv are missing (not Linux) workers still
// run, only without these guarantees; pinning without taskset is refused by the config check.
import { which } from '../../which.js';

let found;
/** @returns {{setsid: string|null, setpriv: string|null, taskset: string|null}} */
export function execTools() {
  found ??= process.platform === 'linux'
    ? { setsid: which('setsid'), setpriv: which('setpriv'), taskset: which('taskset') }
    : { setsid: null, setpriv: null, taskset: null };
  return found;
}

/**
 * The programs to exec through, in order, before the worker's own command line.
 * @param {{session?: boolean, pdeathsig?: boolean, cpus?: string|null}} o  cpus: a taskset list like "0,2-3"
 * @returns {string[]} e.g. ['/usr/bin/setsid', '/usr/bin/taskset', '-c', '0']
 */
export function execPrefix({ session = false, pdeathsig = false, cpus = null }) {
  const t = execTools();
  const out = [];
  if (session && t.setsid) out.push(t.setsid);
  if (pdeathsig && t.setpriv) out.push(t.setpriv, '--pdeathsig', 'KILL');
  if (cpus) {
    // The config check refuses pinning where taskset is missing; this is the last guard.
    if (!t.taskset) throw new Error('cpu_affinity needs taskset (util-linux) on Linux; it was not found on PATH');
    out.push(t.taskset, '-c', cpus);
  }
  return out;
}
