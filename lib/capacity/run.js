// `super capacity`: the measurement itself, run by the CLI. The daemon starts the copy
// (`capacity-copy`, lib/master/control/capacity-copy.js) and scales it; the load comes from
// this process (lib/capacity/load.js). For 1, 2, ... instances it finds the highest rate
// within the objective (lib/capacity/search.js), and stops adding instances when that
// rate stops growing, saying why: the CPUs are all in use, the load generator is
// saturated, or the bottleneck is elsewhere.
import net from 'node:net';
import { SuperError } from '../errors.js';
import { startFailure } from '../worker-failure.js';
import { runProbe, GENERATOR_SATURATED } from './load.js';
import { searchMaxRate } from './search.js';
import { pct } from './render.js';

// One more instance must add at least this much to the max rate to count as growth.
const GROWTH = 1.1;
// The machine's CPUs count as all in use above this busy share.
const MACHINE_BUSY = 0.9;

/**
 * @param {object} o
 * @param {object} o.client  a connection to the daemon (it owns the copy: closing it removes the copy)
 * @param {string} o.app
 * @param {object} o.plan  lib/capacity/options.js parseOptions()
 * @param {(line: string) => void} o.progress
 * @param {{stopped: boolean, current: {stop: () => void}|null}} o.abort  set by Ctrl-C; current: the running probe
 * @param {(name: string) => void} o.onCopy  gets the copy's name as soon as the daemon has made it
 * @returns {Promise<{copy: object, rows: object[], stopped: {reason: string, detail: string}|null}>}  stopped: null only
 *   when no instance count was tried
 */
export async function measureCapacity({ client, app, plan, progress, abort, onCopy }) {
  const started = Date.now();
  const port = plan.port ?? await freeLoopbackPort();
  if (plan.port !== null && !(await portFree(plan.port))) {
    throw new SuperError('E_USAGE', `--port ${plan.port}: 127.0.0.1:${plan.port} is in use; give a free port for the copy, or leave --port out to let superd choose one`);
  }
  const copy = await client.request('capacity-copy', { app, port }, { timeout: 0 });
  onCopy(copy.copy);
  if (copy.failed.length) throw startFailure(copy.failed[0], ' (the copy of the app super capacity measures)');
  for (const w of copy.warnings) progress(w);
  // superd waited for `listening` (or ready); a fork-mode app ready at spawn gets its listen_timeout
  await waitListening(port, copy.listen_timeout, copy);
  const maxInstances = copy.exec_mode === 'fork' ? 1 : plan.maxInstances;
  progress(`${copy.copy} listens on 127.0.0.1:${port} (${copy.port_var}); steps of ${plan.stepMs / 1000} s, at most ${maxInstances} instance(s)`);
  const url = `http://127.0.0.1:${port}${plan.path}`;
  const deadline = started + plan.maxTimeMs;
  /** `rate` r/s for `ms`; Ctrl-C stops the load and drops the run. */
  const load = async (rate, ms) => {
    const p = await runProbe({ url, rate, stepMs: ms, connections: plan.connections, slo: plan.slo, running: (i) => (abort.current = i) });
    abort.current = null;
    if (abort.stopped) throw new Error('interrupted'); // the command drops the run
    return p;
  };
  const rows = [];
  let stopped = null;
  for (let n = 1; n <= maxInstances && !stopped; n++) {
    if (n > 1 && Date.now() + plan.warmupMs + plan.stepMs > deadline) {
      stopped = timeBound(plan);
      break;
    }
    if (n > 1) await scaleCopy(client, copy.copy, n);
    const start = rows.length ? Math.max(1, rows[rows.length - 1].max_rps) : plan.startRate;
    // New workers are cold (JIT, caches, lazy requires): load them, unmeasured, first.
    if (plan.warmupMs > 0) {
      progress(`${n} instance(s): warming up at ${start} r/s for ${plan.warmupMs / 1000} s`);
      await load(start, plan.warmupMs);
    }
    const probe = async (rate) => {
      const p = await load(rate, plan.stepMs);
      p.workers = await workerMetrics(client, copy.copy);
      progress(`${n} instance(s) at ${rate} r/s: ${p.ok ? 'within' : `outside (${p.why})`}; p99 ${p.latency_ms.p99} ms, generator CPU ${pct(p.generator_cpu)}, machine CPU ${pct(p.machine_cpu)}`);
      return p;
    };
    const s = await searchMaxRate({ probe, start, maxRate: plan.maxRate, probes: plan.probes, canProbe: () => Date.now() + plan.stepMs <= deadline });
    const row = toRow(n, s);
    rows.push(row);
    progress(`${n} instance(s): ${row.max_rps} r/s within the objective${row.limit ? `; above it: ${row.limit}` : ''}`);
    stopped = stopReason(rows, { plan, bound: s.bound, maxInstances, forkMode: copy.exec_mode === 'fork' });
  }
  return { copy, rows, stopped };
}

/** One row of the table: the best probe's numbers, and what failed just above it. */
function toRow(instances, s) {
  const best = s.best;
  const generatorCpu = Math.max(0, ...s.probes.map((p) => p.generator_cpu));
  const machineCpu = Math.max(0, ...s.probes.map((p) => p.machine_cpu));
  return {
    instances,
    max_rps: s.max_rps,
    p99_ms: best?.latency_ms.p99 ?? null,
    'p99.9_ms': best?.latency_ms['p99.9'] ?? null,
    served_rps: best?.served_rps ?? null,
    cpu_per_worker: best?.workers.map((w) => w.cpu) ?? [],
    loop_p99_ms_per_worker: best?.workers.map((w) => w.loop_p99_ms) ?? [],
    generator_cpu: generatorCpu,
    generator_saturated: generatorCpu >= GENERATOR_SATURATED,
    machine_cpu: machineCpu,
    limit: s.failed ? `${s.failed.rate} r/s: ${s.failed.why}` : null,
    errors_seen: s.probes.reduce((sum, p) => sum + p.errors + p.timeouts + p.non2xx, 0),
    probes: s.probes.length,
    bound: s.bound,
  };
}

/**
 * Why no more instances are tried after the last row, or null to go on.
 * @param {object[]} rows
 * @param {{plan: object, bound?: string|null, maxInstances: number, forkMode?: boolean}} o
 */
export function stopReason(rows, { plan, bound, maxInstances, forkMode }) {
  const last = rows.at(-1);
  if (bound === 'time') return timeBound(plan);
  if (bound === 'rate') return { reason: 'rate', detail: `${last.instances} instance(s) served the rate bound (--max-rate ${plan.maxRate} r/s) within the objective` };
  if (last.generator_saturated) {
    return { reason: 'generator', detail: `the load generator used ${pct(last.generator_cpu)} of a CPU at ${last.instances} instance(s): the result is limited by it, not by the app; measure on a machine with more CPUs` };
  }
  const prev = rows.at(-2);
  if (prev && last.max_rps < prev.max_rps * GROWTH) {
    const detail = `max r/s stopped growing at ${last.instances} instances (${prev.max_rps} -> ${last.max_rps} r/s)`;
    if (last.instances > plan.cpus) return { reason: 'cpus', detail: `${detail}: this machine has ${plan.cpus} CPU(s), shared with the load generator` };
    if (last.machine_cpu >= MACHINE_BUSY) {
      return { reason: 'cpus', detail: `${detail}: the machine's CPUs were ${pct(last.machine_cpu)} busy (the copy, the load generator and every other process)` };
    }
    return { reason: 'elsewhere', detail: `${detail} with CPUs to spare: the bottleneck is elsewhere (the load generator shares the machine, a shared resource of the app, the daemon's round-robin)` };
  }
  if (last.instances >= maxInstances) {
    return forkMode
      ? { reason: 'fork-mode', detail: 'a fork-mode app is measured with one instance: its workers cannot share one port' }
      : { reason: 'max-instances', detail: `--max-instances ${maxInstances} reached` };
  }
  return null;
}

const timeBound = (plan) => ({ reason: 'time', detail: `the total time bound (--max-time ${plan.maxTimeMs / 1000} s) was reached` });

async function scaleCopy(client, copy, n) {
  const r = await client.request('scale', { app: copy, count: String(n) }, { timeout: 0 });
  if (r.failed?.length) throw startFailure(r.failed[0], ' (the copy of the app super capacity measures)');
}

/** The copy's workers' CPU (% of a CPU) and event-loop delay p99 (ms), from the agent's reports. */
async function workerMetrics(client, copy) {
  const { apps } = await client.request('ls');
  const workers = apps.find((a) => a.name === copy)?.workers ?? [];
  return workers.map((w) => ({ slot: w.slot, cpu: w.cpu, loop_p99_ms: w.metrics?.loop_delay_ms?.p99 ?? null }));
}

/** Whether 127.0.0.1:port can be listened on now. */
function portFree(port) {
  return new Promise((resolve) => {
    const s = net.createServer();
    s.once('error', () => resolve(false));
    s.listen(port, '127.0.0.1', () => s.close(() => resolve(true)));
  });
}

/** A port free on 127.0.0.1 now (the kernel's choice). */
function freeLoopbackPort() {
  return new Promise((resolve, reject) => {
    const s = net.createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const { port } = /** @type {import('node:net').AddressInfo} */ (s.address());
      s.close(() => resolve(port));
    });
  });
}

/** Resolves once 127.0.0.1:port accepts a connection; E_CAPACITY_NO_PORT after `ms`. */
async function waitListening(port, ms, copy) {
  const deadline = Date.now() + ms;
  while (Date.now() < deadline) {
    if (await accepts(port)) return;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new SuperError('E_CAPACITY_NO_PORT', `${copy.copy} did not listen on 127.0.0.1:${port} within ${ms / 1000} s although its ${copy.port_var} said so; super capacity measures an app that listens on the port its env gives it`);
}

function accepts(port) {
  return new Promise((resolve) => {
    const s = net.connect({ host: '127.0.0.1', port });
    s.once('connect', () => {
      s.destroy();
      resolve(true);
    });
    s.once('error', () => resolve(false));
  });
}
