// What to do about a worker's health, decided from numbers only (pure: unit-tested
// without processes). The monitor calls it after every sample and carries it out.
//
//   max_memory_restart    RSS of the worker's process tree above the limit, at any sample
//                         -> 'replace': a ready-first replacement of that slot (no request lost)
//   max_requests          the worker has answered that many HTTP requests (plus its share of
//                         max_requests_jitter) -> 'replace', the same way
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
 * @param {{max_memory_restart: number|null, unresponsive_timeout: number|null, max_requests?: number|null, max_requests_jitter?: number}} o.config
 * @param {number} o.interval                     the worker's report interval (ms)
 * @param {number} o.now
 * @param {number} [o.answered]                   HTTP requests the worker has answered
 * @param {number} [o.jitterDraw]                 0 <= x < 1, drawn once per worker: its share of max_requests_jitter
 * @returns {null | {action: 'replace'|'kill', rule: string, reason: string}}
 */
export function decideHealthAction({ cost, unansweredSince, hasAgent, config, interval, now, answered = 0, jitterDraw = 0 }) {
  const limit = config.max_memory_restart;
  if (limit && cost?.memory != null && cost.memory > limit) {
    return { action: 'replace', rule: 'max_memory_restart', reason: `memory ${mib(cost.memory)} is above max_memory_restart (${mib(limit)})` };
  }
  if (config.max_requests) {
    const most = config.max_requests + Math.floor(jitterDraw * ((config.max_requests_jitter ?? 0) + 1));
    if (answered >= most) return { action: 'replace', rule: 'max_requests', reason: `answered ${answered} requests (max_requests: ${most} for this worker)` };
  }
  const timeout = config.unresponsive_timeout;
  if (timeout && hasAgent && interval > 0 && unansweredSince !== null) {
    const silent = now - unansweredSince;
    if (silent > Math.max(timeout, MIN_SILENT_INTERVALS * interval)) {
      return { action: 'kill', rule: 'unresponsive_timeout', reason: `unresponsive: no metrics for ${(silent / 1000).toFixed(1)} s (unresponsive_timeout ${timeout} ms); its event loop is blocked` };
    }
  }
  return null;
}

const mib = (n) => `${(n / 1048576).toFixed(1)} MiB`;
