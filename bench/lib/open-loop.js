// An open-loop HTTP load generator: requests are sent at a constant arrival rate on a
// timer, whatever the server answers, so a slow server does not slow the offered load
// (autocannon's overallRate only caps closed-loop connections: a connection sends its next
// request when its last one is answered, which hides a queue). Each latency is measured
// from the request's scheduled time, so the client's own lateness counts too; a request
// not answered within `timeout` is destroyed and counted as a timeout.
import http from 'node:http';

const TICK_MS = 2;

/** The q-quantile (0..1) of sorted numbers, or null. */
export function quantile(sorted, q) {
  if (sorted.length === 0) return null;
  return sorted[Math.min(sorted.length - 1, Math.ceil(q * sorted.length) - 1)];
}

/**
 * @param {{port: number, path?: string, rate: number, seconds: number, timeout?: number, settleMs?: number}} o
 *   rate: requests per second; seconds: how long to send; timeout: ms per request;
 *   settleMs: the requests scheduled before this (ms into the run) are left out of `steady`
 * @returns {Promise<{sent: number, byStatus: Record<string, number>, inWindow: Record<string, number>, timeouts: number,
 *   errors: number, latency: Record<string, number[]>, steady: Record<string, number[]>, seconds: number}>}
 *   latency: sorted ms by status ('200', '503', ...); steady: the same, without the first settleMs;
 *   inWindow: answers by status that arrived while requests were being sent (a rate over `seconds`)
 */
export function openLoop({ port, path = '/', rate, seconds, timeout = 5000, settleMs = 0 }) {
  const agent = new http.Agent({ keepAlive: true, maxSockets: Infinity });
  const total = Math.round(rate * seconds);
  const out = { sent: 0, byStatus: {}, inWindow: {}, timeouts: 0, errors: 0, latency: {}, steady: {}, seconds };
  let pending = 0;
  const start = performance.now();
  return new Promise((resolve) => {
    const finish = () => {
      if (out.sent < total || pending > 0) return;
      agent.destroy();
      for (const list of [...Object.values(out.latency), ...Object.values(out.steady)]) list.sort((a, b) => a - b);
      resolve(out);
    };
    const send = (due) => {
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
      const req = http.get({ host: '127.0.0.1', port, path, agent }, (res) => {
        res.resume();
        res.on('end', () => settle(() => {
          const key = String(res.statusCode);
          out.byStatus[key] = (out.byStatus[key] ?? 0) + 1;
          const ms = performance.now() - due;
          if (performance.now() - start <= seconds * 1000) out.inWindow[key] = (out.inWindow[key] ?? 0) + 1;
          (out.latency[key] ??= []).push(ms);
          if (due - start >= settleMs) (out.steady[key] ??= []).push(ms);
        }));
      });
      req.on('error', () => settle(() => out.errors++));
      const timer = setTimeout(() => {
        settle(() => out.timeouts++);
        req.destroy();
      }, Math.max(0, due + timeout - performance.now()));
    };
    const tick = setInterval(() => {
      const now = performance.now();
      // Every request due by now goes out now, whatever is still unanswered.
      while (out.sent < total && start + (out.sent * 1000) / rate <= now) send(start + (out.sent * 1000) / rate);
      if (out.sent >= total) {
        clearInterval(tick);
        finish();
      }
    }, TICK_MS);
  });
}
