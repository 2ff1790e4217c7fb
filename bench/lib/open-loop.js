// An open-loop HTTP load generator: requests are sent at a constant arrival rate on a
// timer, whatever the server answers, so a slow server does not slow the offered load
// (autocannon's overallRate only caps closed-loop connections: a connection sends its next
// request when its last one is answered, which hides a queue). Each latency is measured
// from the request's scheduled time, so the client's own lateness counts too; a request
// not answered within `timeout` is destroyed and counted as a timeout. The rate may step:
// `phases` run one after the other over one connection pool (bench/autoscale.js). With
// `shape: 'new-connection'`, each request goes on a connection of its own (`Connection:
// close`), as nginx's default upstream, health checkers and clients without an agent send.
import http from 'node:http';

const TICK_MS = 2;

/** The q-quantile (0..1) of sorted numbers, or null. */
export function quantile(sorted, q) {
  if (sorted.length === 0) return null;
  return sorted[Math.min(sorted.length - 1, Math.ceil(q * sorted.length) - 1)];
}

/**
 * @typedef {{at: number, ms: number, status: number|'timeout'|'error', body: string}} OpenLoopResult
 *   at: the request's scheduled time (epoch ms); ms: from then to its end; body: the answer's
 */

/** The ms after the start at which each request is due, phase after phase. */
function schedule(phases) {
  const due = [];
  let phaseStart = 0;
  for (const { rate, seconds } of phases) {
    const n = Math.round(rate * seconds);
    for (let i = 0; i < n; i++) due.push(phaseStart + (i * 1000) / rate);
    phaseStart += seconds * 1000;
  }
  return { due, ms: phaseStart };
}

/**
 * @param {{port: number, path?: string, rate?: number, seconds?: number, phases?: {rate: number, seconds: number}[],
 *   timeout?: number, settleMs?: number, shape?: 'keep-alive'|'new-connection', onResult?: (r: OpenLoopResult) => void}} o
 *   rate: requests per second; seconds: how long to send; phases: instead of rate and seconds,
 *   rates one after the other; timeout: ms per request; settleMs: the requests scheduled
 *   before this (ms into the run) are left out of `steady`; onResult: called with every
 *   request's outcome (and only then is the body read)
 * @returns {Promise<{sent: number, byStatus: Record<string, number>, inWindow: Record<string, number>, timeouts: number,
 *   errors: number, latency: Record<string, number[]>, steady: Record<string, number[]>, onNew: Record<string, number[]>,
 *   onKept: Record<string, number[]>, seconds: number}>}
 *   latency: sorted ms by status ('200', '503', ...); steady: the same, without the first settleMs;
 *   onNew, onKept: the same, of the requests sent on a new connection, and on a kept-alive one;
 *   inWindow: answers by status that arrived while requests were being sent (a rate over `seconds`)
 */
export function openLoop({ port, path = '/', rate, seconds, phases = [{ rate, seconds }], timeout = 5000, settleMs = 0, shape = 'keep-alive', onResult }) {
  const agent = new http.Agent({ keepAlive: true, maxSockets: Infinity });
  const each = shape === 'new-connection' ? { agent: false, headers: { connection: 'close' } } : { agent };
  const { due, ms: windowMs } = schedule(phases);
  const total = due.length;
  const out = { sent: 0, byStatus: {}, inWindow: {}, timeouts: 0, errors: 0, latency: {}, steady: {}, onNew: {}, onKept: {}, seconds: windowMs / 1000 };
  let pending = 0;
  const start = performance.now();
  const report = (at, status, body = '') => onResult?.({ at: performance.timeOrigin + at, ms: performance.now() - at, status, body });
  return new Promise((resolve) => {
    const finish = () => {
      if (out.sent < total || pending > 0) return;
      agent.destroy();
      for (const list of [...Object.values(out.latency), ...Object.values(out.steady), ...Object.values(out.onNew), ...Object.values(out.onKept)]) list.sort((a, b) => a - b);
      resolve(out);
    };
    const send = (at) => {
      out.sent++;
      pending++;
      let settled = false;
      const settle = (fn) => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        pending--;
        fn();
        finish();
      };
      const req = http.get({ host: '127.0.0.1', port, path, ...each }, (res) => {
        let body = '';
        if (onResult) res.setEncoding('utf8').on('data', (d) => (body += d));
        else res.resume();
        res.on('end', () => settle(() => {
          const key = String(res.statusCode);
          out.byStatus[key] = (out.byStatus[key] ?? 0) + 1;
          const ms = performance.now() - at;
          if (performance.now() - start <= windowMs) out.inWindow[key] = (out.inWindow[key] ?? 0) + 1;
          (out.latency[key] ??= []).push(ms);
          if (at - start >= settleMs) (out.steady[key] ??= []).push(ms);
          ((req.reusedSocket ? out.onKept : out.onNew)[key] ??= []).push(ms);
          report(at, res.statusCode ?? 0, body);
        }));
      });
      req.on('error', () => settle(() => {
        out.errors++;
        report(at, 'error');
      }));
      const timer = setTimeout(() => {
        settle(() => {
          out.timeouts++;
          report(at, 'timeout');
        });
        req.destroy();
      }, Math.max(0, at + timeout - performance.now()));
    };
    const tick = setInterval(() => {
      const now = performance.now();
      // Every request due by now goes out now, whatever is still unanswered.
      while (out.sent < total && start + due[out.sent] <= now) send(start + due[out.sent]);
      if (out.sent >= total) {
        clearInterval(tick);
        finish();
      }
    }, TICK_MS);
  });
}
