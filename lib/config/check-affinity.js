// Checks `cpu_affinity` (per app) and `daemon.cpu_affinity` beyond what the schema can:
// ranges that run backwards, CPUs the daemon may not use, an empty per-instance mapping,
// and pinning asked for where it cannot work. The schema already refused values of the
// wrong shape. A mapping that names instances the app does not have (yet) is not an error
// but a start warning (unmappedWarning): `super scale` adds instances, and they take the
// CPUs the mapping gives them.

import { formatCpuList, parseCpuSet, pinningUnsupported } from './cpu-set.js';

/**
 * @param {unknown} value  cpu_affinity as written (absent: undefined or null)
 * @param {object} o
 * @param {number[]} o.allowed  CPUs the daemon may use
 * @param {string|null} [o.noPinning]  why pinning cannot work here (default: detected)
 * @param {boolean} [o.perSlot=true]  whether `spread` and per-slot mappings are allowed (apps: yes; the daemon: no)
 * @param {(segments: (string|number)[], message: string) => void} report  segments relative to the key
 */
export function checkAffinity(value, { allowed, noPinning, perSlot = true }, report) {
  if (value === undefined || value === null) return;
  const why = noPinning === undefined ? pinningUnsupported() : noPinning;
  if (why) {
    report([], `${why}; remove cpu_affinity, or run superd on Linux with util-linux installed`);
    return;
  }
  if (perSlot && value === 'spread') return;
  if (perSlot && typeof value === 'object' && !Array.isArray(value)) {
    const entries = Object.entries(value);
    if (!entries.length) report([], 'an empty mapping pins no instance; map instance numbers (from 0) to CPUs, like {0: [0], 1: "2-3"}, use spread, or remove cpu_affinity');
    for (const [slot, set] of entries) checkSet(set, [slot]);
    return;
  }
  checkSet(value, []);

  function checkSet(set, at) {
    // A list is checked item by item, so each problem points at its own item.
    if (Array.isArray(set)) {
      set.forEach((cpu, i) => checkSet(cpu, [...at, i]));
      return;
    }
    const parsed = parseCpuSet(set);
    if (parsed.error !== undefined) {
      report(at, `${parsed.error}`);
      return;
    }
    const outside = parsed.cpus.filter((c) => !allowed.includes(c));
    if (outside.length) {
      const list = formatCpuList(allowed);
      const what = outside.length === 1 ? `CPU ${outside[0]} is` : `CPUs ${formatCpuList(outside)} are`;
      report(at, `${what} outside the CPUs the daemon may use (${list}); use CPUs from ${list}${perSlot ? ', or spread' : ''}`);
    }
  }
}

/**
 * The start warning for a per-instance mapping that names instances the app does not run
 * (keys >= instances: they pin nothing until `super scale` adds those instances), or null.
 * @param {{name: string, instances: number, cpu_affinity: unknown}} config  normalized app config
 * @returns {string|null}
 */
export function unmappedWarning({ name, instances, cpu_affinity: spec }) {
  if (!spec || typeof spec !== 'object' || Array.isArray(spec)) return null;
  const beyond = [...new Set(Object.keys(spec).map(Number))].filter((i) => i >= instances).sort((a, b) => a - b);
  if (!beyond.length) return null;
  const many = beyond.length > 1;
  const list = beyond.length > 5 ? `${beyond.slice(0, 5).join(', ')}, ...` : beyond.join(', ');
  return `${name}: cpu_affinity maps instance${many ? 's' : ''} ${list}, but ${name} runs ${instances} instance${instances === 1 ? '' : 's'} `
    + `(${instances === 1 ? '0' : `0 to ${instances - 1}`}); ${many ? 'those entries pin' : 'that entry pins'} nothing until \`super scale ${name} ${beyond[beyond.length - 1] + 1}\` adds `
    + `${many ? 'them' : 'it'}; instance numbers count from 0`;
}
