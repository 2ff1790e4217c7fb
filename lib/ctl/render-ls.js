// The `super ls` table: one row per worker.
import { formatDuration, formatBytes, formatCpu, renderTable } from './format.js';

export function renderLs({ apps }) {
  if (apps.length === 0) return 'no apps (start some with `super start <ecosystem.yml>`)';
  const rows = [];
  for (const app of apps) {
    if (app.workers.length === 0) rows.push([app.name, '-', '-', app.status, '-', '-', '-', '-']);
    for (const w of app.workers) {
      rows.push([app.name, w.slot, w.pid ?? '-', w.status, formatDuration(w.uptime_ms), w.restarts, formatCpu(w.cpu), formatBytes(w.memory)]);
    }
  }
  return renderTable(['app', 'slot', 'pid', 'status', 'uptime', 'restarts', 'cpu', 'memory'], rows);
}

/** The documented --json shape of `super ls` (stable for scripts). */
export function lsJson({ apps }) {
  return {
    apps: apps.map((a) => ({
      name: a.name,
      status: a.status,
      instances: a.instances,
      workers: a.workers.map((w) => ({ slot: w.slot, pid: w.pid, status: w.status, uptime_ms: w.uptime_ms, restarts: w.restarts, cpu: w.cpu, memory: w.memory, cpus: w.cpus, pinned: w.pinned })),
    })),
  };
}
