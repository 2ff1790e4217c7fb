// The options of `super capacity`, checked before anything starts: each bad one is an
// E_USAGE line naming the option, and the running app is never touched. Pure (no I/O).
import os from 'node:os';
import { SuperError } from '../errors.js';
import { parseDuration } from '../config/units.js';

// The percentiles an objective may name -> autocannon's field of result.latency.
export const PERCENTILES = Object.freeze({ p50: 'p50', p90: 'p90', 'p97.5': 'p97_5', p99: 'p99', 'p99.9': 'p99_9' });
const MAX_SLO_MS = 60_000;
const LIMITS = Object.freeze({
  maxInstances: [1, 64],
  connections: [1, 1000],
  maxRate: [1, 1_000_000],
  startRate: [1, 1_000_000],
  probes: [2, 50],
  stepMs: [500, 5 * 60_000],
  maxTimeMs: [1000, 24 * 3600_000],
  warmupMs: [0, 60_000],
  port: [1, 65535],
});

const usage = (message) => new SuperError('E_USAGE', message);

/**
 * `p99=20ms` or `p99=20ms,p99.9=50ms` -> {p99: 20, 'p99.9': 50} (milliseconds).
 * @param {string|undefined} text
 */
export function parseSlo(text) {
  const shape = 'give --slo as p99=20ms (several: p99=20ms,p99.9=50ms; percentiles p50, p90, p97.5, p99, p99.9; ms or s)';
  if (typeof text !== 'string' || !text.trim()) throw usage(`--slo is required: ${shape}`);
  const slo = {};
  for (const part of text.split(',')) {
    const m = /^\s*(p[\d.]+)\s*(?:=|<=|<)\s*(\d+(?:\.\d+)?)\s*(ms|s)\s*$/.exec(part);
    if (!m || !Object.hasOwn(PERCENTILES, m[1])) throw usage(`--slo ${text}: "${part.trim()}" is not an objective; ${shape}`);
    const ms = Number(m[2]) * (m[3] === 's' ? 1000 : 1);
    if (!(ms > 0) || ms > MAX_SLO_MS) throw usage(`--slo ${text}: ${m[1]} must be more than 0 and at most ${MAX_SLO_MS / 1000} s`);
    if (Object.hasOwn(slo, m[1])) throw usage(`--slo ${text}: ${m[1]} is given twice`);
    slo[m[1]] = ms;
  }
  return slo;
}

/**
 * The request path on the copy. The load goes only to the copy's own loopback port (which
 * superd chooses), so a URL naming a host or a port is refused, whatever it names.
 */
export function parsePath(text = '/') {
  if (typeof text !== 'string' || !text.startsWith('/') || text.startsWith('//') || /[\s\\]/.test(text) || text.length > 2048) {
    throw usage(`--path ${text}: give a path such as /10000; super capacity sends its load only to its copy's own loopback port (127.0.0.1, a free port it chooses), never to another host or port`);
  }
  return text;
}

/** `25/s`, `25 r/s`, `25rps` or `25` -> 25 (requests per second). */
export function parseTarget(text) {
  if (text === undefined) return null;
  const m = /^\s*(\d+(?:\.\d+)?)\s*(?:\/s|r\/s|rps|req\/s)?\s*$/i.exec(String(text));
  const rate = m ? Number(m[1]) : NaN;
  if (!(rate > 0) || rate > LIMITS.maxRate[1]) throw usage(`--target ${text}: give a request rate such as 25/s (more than 0, at most ${LIMITS.maxRate[1]})`);
  return rate;
}

/**
 * @template {number|null} F
 * @param {string} flag  @param {unknown} value  @param {readonly number[]} range  @param {F} fallback
 * @returns {number|F}
 */
function integer(flag, value, [min, max], fallback) {
  if (value === undefined) return fallback;
  const n = /^\d{1,9}$/.test(String(value)) ? Number(value) : NaN;
  if (!(n >= min && n <= max)) throw usage(`${flag} ${value}: give a whole number from ${min} to ${max}`);
  return n;
}

/** @param {string} flag  @param {unknown} value  @param {readonly number[]} range  @param {number} fallback */
function duration(flag, value, [min, max], fallback) {
  if (value === undefined) return fallback;
  const ms = parseDuration(String(value));
  if (ms === undefined || ms < min || ms > max) throw usage(`${flag} ${value}: give a duration from ${min} ms to ${max / 1000} s, such as 10s or 2m`);
  return ms;
}

/**
 * commander's options -> the run's plan.
 * @param {object} o  {slo, path, maxInstances, stepDuration, connections, maxRate, startRate, probes, maxTime, warmup, target, port, svg, json}
 * @param {number} [cpus]  the CPUs this process may use
 */
export function parseOptions(o, cpus = os.availableParallelism()) {
  const plan = {
    slo: parseSlo(o.slo),
    path: parsePath(o.path),
    // one past the CPUs by default: the point where the rate stops growing is the finding
    maxInstances: integer('--max-instances', o.maxInstances, LIMITS.maxInstances, Math.min(cpus + 1, LIMITS.maxInstances[1])),
    stepMs: duration('--step-duration', o.stepDuration, LIMITS.stepMs, 10_000),
    connections: integer('--connections', o.connections, LIMITS.connections, 10),
    maxRate: integer('--max-rate', o.maxRate, LIMITS.maxRate, 100_000),
    startRate: integer('--start-rate', o.startRate, LIMITS.startRate, 10),
    probes: integer('--probes', o.probes, LIMITS.probes, 12),
    maxTimeMs: duration('--max-time', o.maxTime, LIMITS.maxTimeMs, 10 * 60_000),
    warmupMs: duration('--warmup', o.warmup, LIMITS.warmupMs, 2000),
    target: parseTarget(o.target),
    port: integer('--port', o.port, LIMITS.port, null),
    svg: o.svg ?? null,
    json: o.json === true,
    cpus,
  };
  if (plan.startRate > plan.maxRate) throw usage(`--start-rate ${plan.startRate} is above --max-rate ${plan.maxRate}`);
  if (plan.maxTimeMs < plan.stepMs) throw usage(`--max-time ${o.maxTime} is shorter than one step (--step-duration ${plan.stepMs} ms)`);
  return plan;
}
