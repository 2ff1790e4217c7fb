'use strict';
// Whether a heap snapshot fits in the memory available to this worker: the host's
// MemAvailable, or less in a memory cgroup (a container). V8 builds the snapshot's graph in
// the worker's own memory before streaming it out: about the heap's size again.

// Room kept on top of the heap's size, for the graph's overhead and everything else.
const MARGIN = 1.1;

/**
 * @param {number} heapUsed  bytes
 * @param {number|null} available  MemAvailable in bytes; null when unknown (not Linux)
 */
function snapshotFits(heapUsed, available) {
  return available === null || available >= heapUsed * MARGIN;
}

/** MemAvailable of /proc/meminfo in bytes, or null when it cannot be read. */
function memAvailable(meminfo = readMeminfo()) {
  const m = meminfo && /^MemAvailable:\s+(\d+)\s+kB$/m.exec(meminfo);
  return m ? Number(m[1]) * 1024 : null;
}

function readMeminfo() {
  try {
    return require('node:fs').readFileSync('/proc/meminfo', 'utf8');
  } catch {
    return null;
  }
}

/** MemAvailable, or less when this process's memory cgroup leaves less (lib/cgroup-memory.js). */
async function availableToWorker() {
  const { capByCgroup } = await import('../cgroup-memory.js'); // ESM; loaded on the first snapshot only
  return capByCgroup(memAvailable());
}

module.exports = { snapshotFits, memAvailable, availableToWorker };
