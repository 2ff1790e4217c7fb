// One probe: a fixed request rate against the copy for one step, from this process (the
// CLI's; never the daemon's), with autocannon.
//
// autocannon's rate limiter lets a connection send its share of the rate at the start of
// each second, as fast as it can; many connections started together would hit the app
// with one burst per second, and the p99 would measure that burst's queue, not the app's
// capacity. So the rate is spread: one autocannon run per connection, each with one
// connection and its share of the rate, their starts staggered evenly over the first
// second (each ends with the step). A connection sends one request at a time, so at most
// `connections` requests are in flight. The latencies are collected from every run
// (autocannon's own percentiles are per run) and ranked here.
import os from 'node:os';
import autocannon from 'autocannon';
import { PERCENTILES } from './options.js';

// A probe passes only if the copy served (nearly) the rate asked; below that the app is
// saturated, whatever the latency of the requests it did serve says.
const SERVED_SHARE = 0.9;
// The generator is the bottleneck when it uses most of its one core (Node's one thread).
export const GENERATOR_SATURATED = 0.9;
// Latencies kept per probe: the rate bound times the longest step is far more than this;
// past it, later responses are not ranked (the counts stay exact).
const MAX_SAMPLES = 2_000_000;

/**
 * @param {object} o
 * @param {string} o.url
 * @param {number} o.rate  requests per second
 * @param {number} o.stepMs
 * @param {number} o.connections
 * @param {Record<string, number>} o.slo  percentile -> ms
 * @param {(load: {stop: () => void}) => void} [o.running]  gets a handle to stop the load (Ctrl-C)
 * @returns {Promise<object>} {rate, ok, why, served_rps, latency_ms: {p50, ..., 'p99.9'}, errors, timeouts, non2xx,
 *   generator_cpu (share of one CPU), machine_cpu (busy share of all CPUs)}
 */
export async function runProbe({ url, rate, stepMs, connections, slo, running }) {
  const cpu0 = process.cpuUsage();
  const machine0 = machineTimes();
  const t0 = performance.now();
  const latencies = [];
  const runs = [];
  const timers = [];
  let stopped = false;
  running?.({
    stop() {
      stopped = true;
      for (const t of timers) clearTimeout(t);
      for (const r of runs) r.stop();
    },
  });
  const shares = split(rate, Math.max(1, Math.min(connections, rate)));
  const results = await Promise.all(shares.map((share, i) => new Promise((resolve, reject) => {
    // Connections start spread over the first second, or over the first half of a shorter
    // step (a 500 ms warmup), so every run still lasts a positive duration.
    const offset = Math.round((Math.min(1000, stepMs / 2) * i) / shares.length);
    timers.push(setTimeout(() => {
      if (stopped) return resolve(null);
      const run = autocannon(
        // sampleInt: a run ends at its first sample after `duration` (1 s by default: too late)
        { url, connections: 1, overallRate: share, duration: (stepMs - offset) / 1000, sampleInt: 100, ignoreCoordinatedOmission: true },
        (err, res) => (err ? reject(err) : resolve(res)),
      );
      run.on('response', (client, status, bytes, ms) => {
        if (latencies.length < MAX_SAMPLES) latencies.push(ms);
      });
      runs.push(run);
    }, offset));
  })));
  const wall = performance.now() - t0;
  const cpu = process.cpuUsage(cpu0);
  const machine1 = machineTimes();
  const sum = (key) => results.reduce((n, r) => n + (r?.[key] ?? 0), 0);
  const probe = {
    rate,
    served_rps: round(sum('2xx') / (stepMs / 1000)),
    latency_ms: percentiles(latencies),
    errors: sum('errors'),
    timeouts: sum('timeouts'),
    non2xx: sum('non2xx'),
    generator_cpu: round((cpu.user + cpu.system) / 1000 / wall, 2),
    // the whole machine: the copy, this generator, the daemon and anything else running
    machine_cpu: round(1 - (machine1.idle - machine0.idle) / Math.max(1, machine1.total - machine0.total), 2),
  };
  probe.why = failure(probe, slo);
  probe.ok = probe.why === null;
  return probe;
}

/** Idle and total CPU time of every CPU of the machine so far (ms). */
function machineTimes() {
  let idle = 0;
  let total = 0;
  for (const { times } of os.cpus()) {
    idle += times.idle;
    total += times.user + times.nice + times.sys + times.idle + times.irq;
  }
  return { idle, total };
}

/** `total` as `parts` whole numbers that differ by at most one. */
function split(total, parts) {
  return Array.from({ length: parts }, (_, i) => Math.floor(total / parts) + (i < total % parts ? 1 : 0));
}

/** Each percentile of PERCENTILES over the samples (nearest rank), null without samples. */
function percentiles(samples) {
  const sorted = Float64Array.from(samples).sort();
  const at = (q) => (sorted.length ? round(sorted[Math.min(sorted.length - 1, Math.ceil((q / 100) * sorted.length) - 1)]) : null);
  return Object.fromEntries(Object.keys(PERCENTILES).map((name) => [name, at(Number(name.slice(1)))]));
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
