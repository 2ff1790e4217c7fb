// One probe: autocannon at a fixed request rate against the copy for one step, in this
// process (the CLI's; never the daemon's). autocannon's rate limiter gives each connection
// its share of the rate per second and sends it as fast as the connection allows at the
// start of each second, so --connections is the size of those bursts. Its
// coordinated-omission correction is off: with a fixed rate it would add one synthetic
// sample per millisecond of each response, which is not the latency clients see.
import autocannon from 'autocannon';
import { PERCENTILES } from './options.js';

// A probe passes only if the copy served (nearly) the rate asked; below that the app is
// saturated, whatever the latency of the requests it did serve says.
const SERVED_SHARE = 0.9;
// The generator is the bottleneck when it uses most of its one core (Node's one thread).
export const GENERATOR_SATURATED = 0.9;

/**
 * @param {object} o
 * @param {string} o.url
 * @param {number} o.rate  requests per second
 * @param {number} o.stepMs
 * @param {number} o.connections
 * @param {Record<string, number>} o.slo  percentile -> ms
 * @param {(instance: {stop: () => void}) => void} [o.running]  gets the autocannon instance (to stop it on Ctrl-C)
 * @returns {Promise<object>} {rate, ok, why, served_rps, latency_ms: {p50, ..., 'p99.9'}, errors, timeouts, non2xx, generator_cpu}
 */
export async function runProbe({ url, rate, stepMs, connections, slo, running }) {
  const cpu0 = process.cpuUsage();
  const t0 = performance.now();
  const result = await new Promise((resolve, reject) => {
    const instance = autocannon(
      { url, connections: Math.min(connections, rate), overallRate: rate, duration: stepMs / 1000, ignoreCoordinatedOmission: true },
      (err, res) => (err ? reject(err) : resolve(res)),
    );
    running?.(instance);
  });
  const wall = performance.now() - t0;
  const cpu = process.cpuUsage(cpu0);
  const latency = Object.fromEntries(Object.entries(PERCENTILES).map(([name, field]) => [name, result.latency[field]]));
  const served = result['2xx'] / (stepMs / 1000);
  const probe = {
    rate,
    served_rps: round(served),
    latency_ms: latency,
    errors: result.errors,
    timeouts: result.timeouts,
    non2xx: result.non2xx,
    generator_cpu: round((cpu.user + cpu.system) / 1000 / wall, 2),
  };
  probe.why = failure(probe, slo);
  probe.ok = probe.why === null;
  return probe;
}

/** Why a probe does not count as within the objective, or null. */
function failure(p, slo) {
  const bad = p.errors + p.timeouts + p.non2xx;
  if (bad > 0) return `${p.non2xx} non-2xx, ${p.errors} errors, ${p.timeouts} timeouts`;
  for (const [name, limit] of Object.entries(slo)) if (!(p.latency_ms[name] <= limit)) return `${name} ${p.latency_ms[name]} ms > ${limit} ms`;
  if (p.served_rps < p.rate * SERVED_SHARE) return `served ${p.served_rps} r/s of ${p.rate}`;
  return null;
}

const round = (x, digits = 1) => Math.round(x * 10 ** digits) / 10 ** digits;
