// A worker's metrics report, checked at the edge. Any app can send {cmd: 'super:metrics'}
// itself, of any shape and size; only the agent's shape (lib/worker/metrics.cjs) is kept,
// with finite numbers where numbers go and at most MAX_RESOURCE_TYPES resource counts, so
// `ls`, `monit`, the health rules and the Prometheus text never see strings, arrays or a
// huge object where the agent puts a number. Cost: small next to parsing the message.
// A field added to the agent's report must be added here to reach the daemon.

export const MAX_RESOURCE_TYPES = 32;
const RESOURCE_TYPE = /^[A-Za-z][A-Za-z0-9_]{0,63}$/;

const num = (v) => (typeof v === 'number' && Number.isFinite(v) ? v : null);
const obj = (v) => (v !== null && typeof v === 'object' && !Array.isArray(v) ? v : null);

/** @returns {{loop, elu, heap, rss, resources, http}} every field null when absent or malformed */
export function agentReport(data) {
  const loop = obj(data.loop);
  const heap = obj(data.heap);
  const http = obj(data.http);
  return {
    // metrics-store.js merges p99 and max across reports: without both, no loop value.
    loop: loop && num(loop.p99) !== null && num(loop.max) !== null
      ? { p50: num(loop.p50), p99: loop.p99, max: loop.max, mean: num(loop.mean) }
      : null,
    elu: num(data.elu),
    heap: heap && { used: num(heap.used), total: num(heap.total) },
    rss: num(data.rss),
    resources: resourceCounts(obj(data.resources)),
    http: http && { rps: num(http.rps), p99: num(http.p99), requests: num(http.requests) },
  };
}

function resourceCounts(r) {
  if (!r) return null;
  const out = {};
  let n = 0;
  for (const key in r) {
    if (n === MAX_RESOURCE_TYPES) break;
    if (!Object.hasOwn(r, key) || !RESOURCE_TYPE.test(key) || num(r[key]) === null) continue;
    out[key] = r[key];
    n++;
  }
  return out;
}
