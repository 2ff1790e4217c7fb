// Signals to a worker's whole process group (the worker leads it: see exec-prefix.js),
// so the processes a worker started go with it. A group is recorded on disk until it is
// empty or sent SIGKILL (group-record.js).
import { forgetGroup } from './group-record.js';
import { reapStraysNow } from './stray-processes.js';

/** Sends `signal` to every process of group `pgid`. False when the group is empty. */
export function signalGroup(pgid, signal) {
  try {
    process.kill(-pgid, signal);
    return true;
  } catch (err) {
    if (err.code === 'ESRCH') return false;
    // EPERM: not our group (neither perl nor setsid made one, or a pid reused): fall back to the one process
    try {
      process.kill(pgid, signal);
      return true;
    } catch {
      return false;
    }
  }
}

const pendingReaps = new Map(); // pgid -> timer

/**
 * After a worker exits, whatever is left of its group gets `signal`, then SIGKILL after
 * `timeout` ms. No orphan outlives its worker.
 */
export function reapGroup(pgid, signal, timeout) {
  if (!signalGroup(pgid, 0)) return forgetGroup(pgid);
  signalGroup(pgid, signal);
  clearTimeout(pendingReaps.get(pgid));
  const timer = setTimeout(() => {
    pendingReaps.delete(pgid);
    signalGroup(pgid, 'SIGKILL');
    forgetGroup(pgid);
  }, timeout);
  timer.unref();
  pendingReaps.set(pgid, timer);
}

/** At daemon exit: groups (and strays: stray-processes.js) still waiting for their SIGKILL get it now. */
export function reapAllNow() {
  reapStraysNow();
  for (const [pgid, timer] of pendingReaps) {
    clearTimeout(timer);
    signalGroup(pgid, 'SIGKILL');
    forgetGroup(pgid);
  }
  pendingReaps.clear();
}
