// What to do about a worker's health, decided from numbers only (pure: unit-tested
// without processes). The monitor calls it after every sample and carries it out.
//
//   max_memory_restart    RSS of the worker's process tree above the limit, at any sample
//                         -> 'replace': a ready-first replacement of that slot (no request lost)
//   unresponsive_timeout  the agent has not answered the daemon's liveness ping (a report
//                         request, sent once per sample) for that long: its event loop is
//                         blocked -> 'kill': SIGKILL to the group; the crash path restarts the slot
//
// Only a worker that is its slot's current, online worker is judged: one that is starting
// has listen_timeout, one that is stopping has kill_timeout.

/** A silence shorter than this many report intervals is not judged. */
const MIN_SILENT_INTERVALS = 3;

/**
 * @param {object} o
 * @param {{memory: number|null}|null} o.cost    last sample of the process tree
 * @param {number|null} o.unansweredSince         when the oldest ping the agent has not answered was sent (ms epoch; null: none)
 * @param {boolean} o.hasAgent                    the worker runs superd's agent (Node with IPC)
 * @param {{max_memory_restart: number|null, unresponsive_timeout: number|null}} o.config
 * @param {number} o.interval                     the worker's report interval (ms)
 * @param {number} o.now
 * @returns {null | {action: 'replace'|'kill', reason: string}}
 */
export function decideHealthAction({ cost, unansweredSince, hasAgent, config, interval, now }) {
  const limit = config.max_memory_restart;
  if (limit && cost?.memory != null && cost.memory > limit) {
    return { action: 'replace', reason: `memory ${mib(cost.memory)} is above max_memory_restart (${mib(limit)})` };
  }
  const timeout = config.unresponsive_timeout;
  if (timeout && hasAgent && interval > 0 && unansweredSince !== null) {
    const silent = now - unansweredSince;
    if (silent > Math.max(timeout, MIN_SILENT_INTERVALS * interval)) {
      return { action: 'kill', reason: `unresponsive: no metrics for ${(silent / 1000).toFixed(1)} s (unresponsive_timeout ${timeout} ms); its event loop is blocked` };
    }
  }
  return null;
}

const mib = (n) => `${(n / 1048576).toFixed(1)} MiB`;
