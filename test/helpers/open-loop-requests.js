// Open-loop HTTP requests for the overload tests: requests leave on a timer whatever the
// server answers (a slow server does not slow the load, so its queue shows), and each
// outcome is counted by kind: a status, 'timeout' or 'error'. Tests assert the kinds
// (refused vs. timed out), never latencies or counts of a timed window.
import http from 'node:http';

/**
 * One GET (`agent`: false, a new connection with `Connection: close`; or a keep-alive
 * agent): its status (or what `label` makes of the answer), or 'timeout' / 'error'.
 * @param {number} port
 * @param {string} path
 * @param {{timeout?: number, agent?: http.Agent|false, label?: (res: http.IncomingMessage) => number|string}} [o]
 * @returns {Promise<number|string>}
 */
export function getOnce(port, path, { timeout = 8000, agent = false, label = (res) => res.statusCode ?? 0 } = {}) {
  return new Promise((resolve) => {
    const headers = agent ? {} : { connection: 'close' };
    const req = http.get({ host: '127.0.0.1', port, path, agent, headers }, (res) => {
      res.resume();
      res.on('end', () => resolve(label(res)));
      res.on('error', () => resolve('error'));
    });
    req.setTimeout(timeout, () => {
      req.destroy();
      resolve('timeout');
    });
    req.on('error', () => resolve('error'));
  });
}

/**
 * `total` GETs sent open-loop at `perSecond`, their outcomes counted ({200: n, 503: m, ...}).
 * `keepAlive`: over a pool of kept-alive connections that grows as answers are slow (an
 * agent without maxSockets), instead of a new connection per request. `timeout`: ms a
 * request may take before it counts as 'timeout'. `label`: the outcome of an answer (default:
 * its status).
 */
export async function openLoop(port, path, perSecond, total, { keepAlive = false, timeout = 8000, label = undefined } = {}) {
  const agent = keepAlive ? new http.Agent({ keepAlive: true, maxSockets: Infinity }) : false;
  const outcomes = [];
  const tickMs = 10;
  const perTick = (perSecond * tickMs) / 1000;
  let sent = 0;
  let owed = 0;
  await new Promise((resolve) => {
    const timer = setInterval(() => {
      owed += perTick;
      for (; owed >= 1 && sent < total; owed--, sent++) outcomes.push(getOnce(port, path, { agent, timeout, label }));
      if (sent >= total) {
        clearInterval(timer);
        resolve(undefined);
      }
    }, tickMs);
  });
  const counts = {};
  for (const o of await Promise.all(outcomes)) counts[o] = (counts[o] ?? 0) + 1;
  if (agent) agent.destroy();
  return counts;
}
