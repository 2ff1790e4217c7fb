// The Prometheus text exposition format (version 0.0.4) of the `ls` rows of the status
// view (lib/master/core/status-view.js): one series per worker (labels app, slot, pid) and
// per app (label app), plus the daemon's own process_* series. Pure: data in, text out.
// Names follow Prometheus conventions: base units (bytes, seconds), _total for counters,
// the superd_ prefix, and a HELP and TYPE line per family.

const esc = (v) => String(v).replace(/\\/g, '\\\\').replace(/\n/g, '\\n').replace(/"/g, '\\"');
const labels = (l) => (Object.keys(l).length === 0 ? '' : `{${Object.entries(l).map(([k, v]) => `${k}="${esc(v)}"`).join(',')}}`);
const num = (v) => (Number.isFinite(v) ? String(v) : null);

class Families {
  constructor() {
    this.families = new Map();
  }

  add(name, type, help, l, value) {
    const v = num(value);
    if (v === null) return;
    let f = this.families.get(name);
    if (!f) this.families.set(name, (f = { type, help, lines: [] }));
    f.lines.push(`${name}${labels(l)} ${v}`);
  }

  toString() {
    const out = [];
    for (const [name, f] of this.families) out.push(`# HELP ${name} ${f.help}`, `# TYPE ${name} ${f.type}`, ...f.lines);
    return `${out.join('\n')}\n`;
  }
}

const ms = (v) => (v == null ? null : v / 1000);

/**
 * @param {{apps: object[]}} ls   the `ls` rows (status-view.js lsView), workers with `metrics`
 * @param {{cpuSeconds: number, rss: number, startTime: number}} daemon  the daemon's own process
 */
export function renderPrometheus(ls, daemon) {
  const f = new Families();
  for (const app of ls.apps) {
    const a = { app: app.name };
    let cpu = 0;
    let memory = 0;
    let rps = 0;
    const byStatus = {};
    for (const w of app.workers) {
      byStatus[w.status] = (byStatus[w.status] ?? 0) + 1;
      const m = w.metrics ?? {};
      cpu += m.cpu ?? 0;
      memory += m.memory ?? 0;
      rps += m.http_rps ?? 0;
      const l = { app: app.name, slot: w.slot, pid: w.pid ?? '' };
      f.add('superd_worker_up', 'gauge', 'Whether the worker is online (1) or not (0).', l, w.status === 'online' ? 1 : 0);
      f.add('superd_worker_restarts_total', 'counter', 'Restarts of the worker slot.', { app: app.name, slot: w.slot }, w.restarts);
      f.add('superd_worker_uptime_seconds', 'gauge', 'Seconds since the worker started.', l, w.uptime_ms / 1000);
      if (!w.pid) continue;
      f.add('superd_worker_cpu_percent', 'gauge', 'CPU of the worker and its child processes, percent of one core.', l, m.cpu);
      f.add('superd_worker_resident_memory_bytes', 'gauge', 'Resident memory of the worker and its child processes.', l, m.memory);
      f.add('superd_worker_processes', 'gauge', 'Processes in the worker\'s tree (the worker and its children).', l, m.processes);
      f.add('superd_worker_heap_used_bytes', 'gauge', 'V8 heap used.', l, m.heap_used);
      f.add('superd_worker_heap_total_bytes', 'gauge', 'V8 heap allocated.', l, m.heap_total);
      for (const [q, key] of [['0.5', 'p50'], ['0.99', 'p99'], ['1', 'max']]) {
        f.add('superd_worker_event_loop_delay_seconds', 'gauge', 'Event-loop delay over the last report interval, by quantile (1 = max).', { ...l, quantile: q }, ms(m.loop_delay_ms?.[key]));
      }
      f.add('superd_worker_event_loop_utilization_ratio', 'gauge', 'Event-loop utilisation over the last report interval (0..1).', l, m.elu);
      f.add('superd_worker_http_requests_per_second', 'gauge', 'HTTP requests answered per second over the last report interval.', l, m.http_rps);
      f.add('superd_worker_http_response_time_p99_seconds', 'gauge', '99th percentile HTTP response time over the last report interval.', l, ms(m.http_p99_ms));
      for (const [type, n] of Object.entries(m.resources ?? {})) {
        f.add('superd_worker_active_resources', 'gauge', 'Active handles and requests keeping the event loop alive, by type.', { ...l, type }, n);
      }
      f.add('superd_worker_report_age_seconds', 'gauge', 'Seconds since the worker\'s agent last reported.', l, ms(m.report_age_ms));
    }
    for (const [status, n] of Object.entries(byStatus)) f.add('superd_app_workers', 'gauge', 'Workers of the app, by status.', { ...a, status }, n);
    f.add('superd_app_cpu_percent', 'gauge', 'CPU of all the app\'s workers and their children, percent of one core.', a, Math.round(cpu * 10) / 10);
    f.add('superd_app_resident_memory_bytes', 'gauge', 'Resident memory of all the app\'s workers and their children.', a, memory);
    f.add('superd_app_http_requests_per_second', 'gauge', 'HTTP requests answered per second by all the app\'s workers.', a, Math.round(rps * 10) / 10);
  }
  f.add('process_cpu_seconds_total', 'counter', 'CPU time of the superd daemon (user + system).', {}, daemon.cpuSeconds);
  f.add('process_resident_memory_bytes', 'gauge', 'Resident memory of the superd daemon.', {}, daemon.rss);
  f.add('process_start_time_seconds', 'gauge', 'Start time of the superd daemon, seconds since the epoch.', {}, daemon.startTime);
  return f.toString();
}
