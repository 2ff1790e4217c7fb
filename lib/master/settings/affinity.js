// CPU pinning plans (pure) and the one I/O step the daemon takes on itself.
//
// Mechanism: util-linux's taskset. Workers are exec'd through `taskset -c <cpus>` (see
// exec-prefix.js), so the mask is set before Node starts and every thread the worker ever
// creates (libuv pool, worker_threads) inherits it. The daemon pins itself with
// `taskset -a -cp <cpus> <pid>` (-a: all its threads; without it only the main thread
// moves, and the libuv pool and worker threads keep running on every CPU;
// docs/measurements.md, CPU pinning).
//
// The CPUs of slot i are a function of (cpu_affinity, i, the daemon's CPUs), computed at
// each fork: a crash replacement or a reload of slot i lands on slot i's CPUs.
import { execFile } from 'node:child_process';
import { formatCpuList, parseCpuSet } from '../../config/cpu-set.js';
import { execTools } from '../process/index.js';

/**
 * The CPUs slot `index` is pinned to, or null when the app does not pin it.
 * @param {unknown} spec  cpu_affinity as written (already checked by lib/config)
 * @param {number} index  the slot
 * @param {number[]} allowed  the CPUs the daemon may use (sorted)
 * @returns {number[]|null}
 */
export function slotCpus(spec, index, allowed) {
  if (spec === null || spec === undefined) return null;
  if (spec === 'spread') return [allowed[index % allowed.length]];
  if (typeof spec === 'object' && !Array.isArray(spec)) {
    const own = Object.entries(spec).find(([k]) => Number(k) === index);
    return own ? (parseCpuSet(own[1]).cpus ?? null) : null;
  }
  return parseCpuSet(spec).cpus ?? null;
}

/**
 * What a worker is exec'd with: its CPU list for taskset (null: no taskset), and what
 * `ls`/`describe` show. An unpinned worker normally inherits the daemon's mask; when the
 * daemon pinned itself (daemon.cpu_affinity), it gets every CPU the daemon started with
 * instead, so pinning the daemon never squeezes the apps onto its CPUs.
 * @param {Pick<import('../../config/index.js').AppConfig, 'cpu_affinity'>} config  the app's normalized config
 * @param {number} index
 * @param {{allowed: number[], daemonPinned: boolean}} affinity
 * @returns {{taskset: string|null, cpus: string, pinned: boolean}}
 */
export function workerAffinity(config, index, { allowed, daemonPinned }) {
  const own = slotCpus(config.cpu_affinity, index, allowed);
  const all = formatCpuList(allowed);
  if (own) return { taskset: formatCpuList(own), cpus: formatCpuList(own), pinned: true };
  return { taskset: daemonPinned ? all : null, cpus: all, pinned: false };
}

/**
 * The warning for `spread` over more workers than CPUs (at start and scale), or null.
 * @param {Pick<import('../../config/index.js').AppConfig, 'name'|'cpu_affinity'|'instances'>} config  normalized app config
 * @param {number[]} allowed
 * @param {number} [instances=config.instances]
 */
export function spreadWarning(config, allowed, instances = config.instances) {
  if (config.cpu_affinity !== 'spread' || instances <= allowed.length) return null;
  const extra = Array.from({ length: instances - allowed.length }, (_, k) => allowed.length + k);
  const pairs = extra.slice(0, 3).map((i) => `#${i} with #${i % allowed.length}`).join(', ');
  return `${config.name}: cpu_affinity spread puts ${instances} workers on ${allowed.length} CPU${allowed.length === 1 ? '' : 's'} (${formatCpuList(allowed)}), `
    + `so workers share CPUs (${pairs}${extra.length > 3 ? ', ...' : ''}); CPU-bound workers that share a CPU gain nothing and add switching; `
    + `use instances: ${allowed.length} or fewer`;
}

/**
 * Pins every thread of a running process (the daemon itself) to `cpus`.
 * Asynchronous: a synchronous taskset (~2.6 ms) would stall the cluster primary, which
 * accepts every connection of every app.
 * @param {number} pid
 * @param {string} cpus  a taskset list like "0" or "0,2-3"
 * @returns {Promise<void>}
 */
export function pinProcess(pid, cpus) {
  const { taskset } = execTools();
  if (!taskset) return Promise.reject(new Error('taskset (util-linux) was not found on PATH'));
  return new Promise((resolve, reject) => {
    execFile(taskset, ['-a', '-cp', cpus, String(pid)], { timeout: 10000 }, (err, stdout, stderr) => {
      if (err) reject(new Error(`taskset -a -cp ${cpus} ${pid} failed: ${(stderr || err.message).trim()}`));
      else resolve();
    });
  });
}
