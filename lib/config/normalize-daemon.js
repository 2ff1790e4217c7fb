// The top-level (daemon-wide) keys of the ecosystem file -> `daemon` settings
// with every default filled in, so the daemon never checks for absent keys.

import path from 'node:path';
import { checkAffinity } from './check-affinity.js';
import { parseDuration, parseSize } from './units.js';
import { controlListenProblem } from './control-settings.js';

/**
 * @typedef {object} DaemonSettings
 * @property {'auto'|'round-robin'|'os'|'reuseport'} scheduling
 * @property {boolean} scheduling_set  whether the file says it (a daemon that runs another
 *   policy refuses a file that does; a file that does not has no opinion)
 * @property {{ listen: string|null, tls: { cert: string, key: string }|null, origins: string[] }} control
 * @property {{ dir: string|null, max_size: number|null, retain: number|null, compress: boolean }} logs
 *   dir absolute (null = $SUPER_HOME/logs), max_size in bytes
 * @property {{ listen: string|null, interval: number, agent_check: string|null }} metrics  listen and
 *   agent_check as host:port (a bare port in the file becomes 127.0.0.1:port), interval in ms
 * @property {string|number|number[]|null} cpu_affinity  as written (checked like an app's)
 */

/**
 * @param {object} data  the parsed document (a mapping)
 * @param {object} ctx
 * @param {import('./problems.js').Problems} ctx.problems
 * @param {string} ctx.baseDir  directory of the ecosystem file
 * @param {number[]} ctx.allowedCpus  the CPUs the daemon may use
 * @param {string|null} [ctx.noPinning]  why CPU pinning cannot work here (default: detected)
 * @returns {DaemonSettings}
 */
export function normalizeDaemon(data, { problems, baseDir, allowedCpus, noPinning }) {
  /** Value at a key path, or undefined when absent or already refused. */
  const get = (...segs) => {
    if (problems.isBad(segs)) return undefined;
    return segs.reduce((cur, s) => (cur && typeof cur === 'object' ? cur[s] : undefined), data);
  };
  const abs = (...segs) => (typeof get(...segs) === 'string' ? path.resolve(baseDir, get(...segs)) : null);

  for (const [key, sub] of [['control', 'listen'], ['metrics', 'listen'], ['metrics', 'agent_check']]) {
    const listen = get(key, sub);
    const port = typeof listen === 'string' ? Number(listen.slice(listen.lastIndexOf(':') + 1)) : (listen ?? 1);
    if (port < 1 || port > 65535) problems.add([key, sub], `port ${port} is out of range; use a port from 1 to 65535`);
  }

  const controlProblem = controlListenProblem(get('control', 'listen'), get('control', 'tls'));
  if (controlProblem) problems.add(['control', 'listen'], controlProblem);

  const affinity = get('daemon', 'cpu_affinity');
  checkAffinity(affinity, { allowed: allowedCpus, noPinning, perSlot: false }, (segs, m) => problems.add(['daemon', 'cpu_affinity', ...segs], m));

  const tls = get('control', 'tls');
  return {
    scheduling: get('scheduling') ?? 'auto',
    scheduling_set: get('scheduling') !== undefined,
    control: {
      listen: get('control', 'listen') ?? null,
      // The schema requires both: null only with that problem reported (the file is refused whole).
      tls: tls ? { cert: /** @type {string} */ (abs('control', 'tls', 'cert')), key: /** @type {string} */ (abs('control', 'tls', 'key')) } : null,
      origins: get('control', 'origins') ?? [],
    },
    logs: {
      dir: abs('logs', 'dir'),
      max_size: parseSize(get('logs', 'max_size')) ?? null,
      retain: get('logs', 'retain') ?? null,
      compress: get('logs', 'compress') ?? false,
    },
    metrics: {
      listen: withHost(get('metrics', 'listen')),
      interval: parseDuration(get('metrics', 'interval')) ?? 1000,
      agent_check: withHost(get('metrics', 'agent_check')),
    },
    cpu_affinity: affinity ?? null,
  };
}

/**
 * metrics.listen (and agent_check) as host:port. A bare port (9209 or "9209") means loopback: metrics are for
 * a scraper on this host unless the file names an address that others can reach.
 */
function withHost(listen) {
  if (listen === undefined || listen === null) return null;
  return typeof listen === 'number' || !listen.includes(':') ? `127.0.0.1:${listen}` : listen;
}
