// The memory available to the daemon's workers, for the memory guards (start gate, surge
// reload): the host's MemAvailable, or less when the daemon's memory cgroup leaves less
// (lib/cgroup-memory.js). MemAvailable is read from /proc/meminfo, or from the file the
// daemon's SUPER_MEMINFO names (same format: a test fakes a small host with it).
// Read asynchronously, and only the first 16 KiB: the daemon's loop stays free whatever
// the file is.
import { open } from 'node:fs/promises';
import { capByCgroup } from '../../cgroup-memory.js';

const MAX_BYTES = 16 * 1024;

/** @returns {Promise<number|null>} bytes; null when neither the host nor a cgroup says */
export async function memAvailable() {
  return capByCgroup(await hostAvailable());
}

/** @returns {Promise<number|null>} bytes; null when the file cannot be read or says nothing of it */
export async function hostAvailable(file = process.env.SUPER_MEMINFO || '/proc/meminfo') {
  let handle;
  try {
    handle = await open(file, 'r');
    const { buffer, bytesRead } = await handle.read({ buffer: Buffer.alloc(MAX_BYTES), position: 0 });
    const m = /^MemAvailable:\s+(\d+)\s*kB/m.exec(buffer.toString('utf8', 0, bytesRead));
    return m ? Number(m[1]) * 1024 : null;
  } catch {
    return null;
  } finally {
    await handle?.close();
  }
}
