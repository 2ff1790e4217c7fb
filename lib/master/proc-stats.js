// CPU % and memory of worker processes, read from /proc asynchronously (never blocking
// the daemon, which accepts every connection in round-robin mode). CPU % is measured
// between two samples of the same pid; a pid seen for the first time is averaged over
// its lifetime. Memory is the resident set (VmRSS). Elsewhere than Linux: nulls.
import fs from 'node:fs/promises';

const TICKS_PER_SEC = 100; // USER_HZ: 100 on every Linux architecture node supports
const last = new Map(); // pid -> {ticks, at}
let bootTime = null;

async function readBootTime() {
  if (bootTime !== null) return bootTime;
  const stat = await fs.readFile('/proc/stat', 'utf8');
  bootTime = Number(/^btime (\d+)/m.exec(stat)?.[1] ?? 0) * 1000;
  return bootTime;
}

async function sampleOne(pid, now) {
  try {
    const [stat, status] = await Promise.all([fs.readFile(`/proc/${pid}/stat`, 'utf8'), fs.readFile(`/proc/${pid}/status`, 'utf8')]);
    // Fields after the ")" that closes comm (which may itself contain spaces).
    const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    const ticks = Number(f[11]) + Number(f[12]); // utime + stime
    const memory = Number(/^VmRSS:\s+(\d+)/m.exec(status)?.[1] ?? 0) * 1024;
    const prev = last.get(pid);
    let cpu;
    if (prev && now > prev.at) {
      cpu = (((ticks - prev.ticks) / TICKS_PER_SEC) * 1000 * 100) / (now - prev.at);
    } else {
      const started = (await readBootTime()) + (Number(f[19]) / TICKS_PER_SEC) * 1000;
      cpu = now > started ? ((ticks / TICKS_PER_SEC) * 1000 * 100) / (now - started) : 0;
    }
    last.set(pid, { ticks, at: now });
    return { cpu: Math.max(0, Math.round(cpu * 10) / 10), memory };
  } catch {
    last.delete(pid);
    return { cpu: null, memory: null };
  }
}

/** @param {number[]} pids  @returns {Promise<Map<number, {cpu: number|null, memory: number|null}>>} */
export async function sampleProcesses(pids) {
  const out = new Map();
  if (process.platform !== 'linux') {
    for (const pid of pids) out.set(pid, { cpu: null, memory: null });
    return out;
  }
  const now = Date.now();
  const results = await Promise.all(pids.map((pid) => sampleOne(pid, now)));
  pids.forEach((pid, i) => out.set(pid, results[i]));
  // Forget pids that are gone, so the map stays bounded.
  for (const pid of last.keys()) if (!out.has(pid) && !pids.includes(pid)) last.delete(pid);
  return out;
}
