// The health gate of `super deploy --max-error-rate`: once a host is ready again and UP,
// HAProxy's own counters for that server (`show stat`) over --min-healthy-time: the share
// of its requests that failed (5xx answers, response and connection errors) must stay at
// or under the rate, and its health check must not have failed once.
const RESPONSES = ['hrsp_1xx', 'hrsp_2xx', 'hrsp_3xx', 'hrsp_4xx', 'hrsp_5xx', 'hrsp_other'];
const POLL_MS = 250;

/**
 * @param {ReturnType<typeof import('../haproxy-runtime.js').haproxyRuntime>} lb
 * @param {{backend: string, minHealthy: number, maxErrorRate: number}} plan
 * @param {string} server
 * @returns {Promise<{failure: string|null, failed: number, requests: number}>}
 */
export async function errorGate(lb, plan, server) {
  const before = await lb.stat(plan.backend, server);
  const deadline = Date.now() + plan.minHealthy;
  for (;;) {
    const now = await lb.stat(plan.backend, server);
    const d = (k) => Math.max(0, (now[k] ?? 0) - (before[k] ?? 0));
    const failed = d('hrsp_5xx') + d('eresp') + d('econ');
    const requests = RESPONSES.reduce((n, k) => n + d(k), 0) + d('eresp') + d('econ');
    // A failed check, or more failures than the whole window may hold, fails at once.
    if (d('chkfail') > 0) return { failure: `HAProxy's health check of it failed ${d('chkfail')} time(s)`, failed, requests };
    const over = requests > 0 && failed / requests > plan.maxErrorRate;
    if (Date.now() >= deadline || (over && failed >= 10)) {
      const failure = over ? `${failed} of its ${requests} requests at the balancer failed (5xx or errors): over --max-error-rate ${+(plan.maxErrorRate * 100).toFixed(3)}%` : null;
      return { failure, failed, requests };
    }
    await new Promise((r) => setTimeout(r, POLL_MS));
  }
}
