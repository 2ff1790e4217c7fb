// Checks `cpu_affinity` (per app) and `daemon.cpu_affinity` beyond what the schema can:
// ranges that run backwards, CPUs the daemon may not use, and pinning asked for where it
// cannot work. The schema already refused values of the wrong shape.

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
    for (const [slot, set] of Object.entries(value)) checkSet(set, [slot]);
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
    if (parsed.error) {
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
