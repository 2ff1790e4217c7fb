// The daemon's own health, for the `stats` op: CPU, memory and event-loop delay. The
// daemon is the cluster primary on the path of every connection, so its event-loop delay
// is the number that says whether something (log floods included) is stalling it.
import { monitorEventLoopDelay } from 'node:perf_hooks';

const RESOLUTION_MS = 10;
// Its timer wakes the daemon 100 times a second: it starts with the first `stats` request
// (whoever asks is measuring), so a daemon nobody measures idles. The first window is empty.
let histogram = null;
let since = Date.now();

// The histogram records the time between timer ticks, resolution included: the delay is
// what exceeds the resolution.
const ms = (ns) => Math.max(0, Math.round((ns / 1e6 - RESOLUTION_MS) * 100) / 100);

/**
 * Current figures; `reset` starts a new event-loop delay window after reading. `gc` runs a
 * full GC first, so heap_used is the live heap (a leak, not garbage not yet collected):
 * only in a daemon started with --expose-gc (the soak's), elsewhere it does nothing.
 */
export function daemonStats({ reset = false, gc = false } = {}) {
  if (gc) globalThis.gc?.();
  if (!histogram) {
    histogram = monitorEventLoopDelay({ resolution: RESOLUTION_MS });
    histogram.enable();
    since = Date.now();
  }
  const cpu = process.cpuUsage();
  const mem = process.memoryUsage();
  const out = {
    pid: process.pid,
    cpu_user_ms: Math.round(cpu.user / 1000),
    cpu_system_ms: Math.round(cpu.system / 1000),
    rss: mem.rss,
    heap_used: mem.heapUsed,
    event_loop_delay_ms: {
      window_ms: Date.now() - since,
      p50: ms(histogram.percentile(50)),
      p99: ms(histogram.percentile(99)),
      max: ms(histogram.max),
    },
  };
  if (reset) {
    histogram.reset();
    since = Date.now();
  }
  return out;
}
