// The processes a worker started that left its process group (spawn with detached: true,
// setsid): kill(-pgid) does not reach them. When the worker is asked to stop, they are
// read from /proc (each process's children, through every thread, at most MAX_TREE), and
// once the worker has exited they get its kill_signal, then SIGKILL after kill_timeout;
// one that leads a group of its own gets it for the whole group. Each is checked against
// its start time first, so a pid reused meanwhile is never signalled.
// Not found: a process whose parent exited before the stop (a double-forking daemon is
// reparented to PID 1 at once), and what a worker that crashes by itself leaves.
import { descendants as treeOf, processInfo } from '../../process-tree.js';

const MAX_TREE = 256; // descendants read per worker: a bound against fork bombs

/** The descendants of `pid`, at most MAX_TREE of them. */
export const descendants = (pid) => treeOf(pid, MAX_TREE);

/** The descendants of `pid` outside process group `pgid`: [{pid, start, leads}]. */
export function strayDescendants(pid, pgid) {
  const out = [];
  for (const child of descendants(pid)) {
    const st = processInfo(child);
    if (st && st.pgid !== pgid) out.push({ pid: child, start: st.start, leads: st.pgid === child });
  }
  return out;
}

function signalStrays(strays, signal) {
  for (const s of strays) {
    if (processInfo(s.pid)?.start !== s.start) continue; // gone, or another process now
    try {
      process.kill(s.leads ? -s.pid : s.pid, signal);
    } catch {
      // ended meanwhile, or not ours to signal
    }
  }
}

const pending = new Map(); // strays -> their SIGKILL timer

/** After the worker exited: `signal` to its strays now, SIGKILL to those left after `timeout` ms. */
export function reapStrays(strays, signal, timeout) {
  if (strays.length === 0) return;
  signalStrays(strays, signal);
  const timer = setTimeout(() => {
    pending.delete(strays);
    signalStrays(strays, 'SIGKILL');
  }, timeout);
  timer.unref();
  pending.set(strays, timer);
}

/** At daemon exit: strays still waiting for their SIGKILL get it now. */
export function reapStraysNow() {
  for (const [strays, timer] of pending) {
    clearTimeout(timer);
    signalStrays(strays, 'SIGKILL');
  }
  pending.clear();
}
