// The Prometheus text exposition format (version 0.0.4) of the `ls` rows of the status
// view (lib/master/apps/status-view.js). Pure: data in, text out.
//
// Conventions followed (prometheus.io/docs/practices/naming and /instrumentation):
// - a worker's identity is app + slot: a restart or a reload changes the pid, never the
//   labels, so it creates no new series; the pid is in superd_worker_info only;
// - rates are counters (_total) for PromQL's rate(): CPU seconds, HTTP requests, shed requests;
// - latencies are summaries: quantiles over the agent's last report interval (NaN when it
//   answered no request), and for HTTP a cumulative _count (the agent reports no sum of
//   response times, so there is no _sum);
// - base units (seconds, bytes), start times as _start_time_seconds (epoch seconds);
// - values are rounded to a fixed number of decimals, so no float noise (0.30000000000000004).

const esc = (v) => String(v).replace(/\\/g, '\\\\').replace(/\n/g, '\\n').replace(/"/g, '\\"');
const labels = (l) => (Object.keys(l).length === 0 ? '' : `{${Object.entries(l).map(([k, v]) => `${k}="${esc(v)}"`).join(',')}}`);

/** `v` rounded to micro-units: an integer divided by 1e6 prints as its shortest decimal. */
const round6 = (v) => (!Number.isFinite(v) ? null : Number.isInteger(v) ? v : Math.round(v * 1e6) / 1e6);
/** Milliseconds as seconds (to the microsecond). */
const seconds = (ms) => (ms == null ? null : round6(ms / 1000));

class Families {
  families = new Map();

  /** A sample of family `name`; `suffix` names a summary's _count / _sum line. */
  add(name, type, help, l, value, suffix = '') {
    const v = Number.isNaN(value) ? 'NaN' : round6(value);
    if (v === null) return;
    let f = this.families.get(name);
    if (!f) this.families.set(name, (f = { type, help, lines: [] }));
    f.lines.push(`${name}${suffix}${labels(l)} ${v}`);
  }

  toString() {
    const out = [];
    for (const [name, f] of this.families) out.push(`# HELP ${name} ${f.help}`, `# TYPE ${name} ${f.type}`, ...f.lines);
    return `${out.join('\n')}\n`;
  }
}

const HELP = {
  info: 'The worker process of a slot (its pid); 1 while it runs.',
  up: 'Whether the worker is online (1) or not (0).',
  restarts: 'Restarts of the worker slot.',
  start: 'Start time of the slot\'s current worker, seconds since the epoch.',
  cpu: 'CPU time (user + system) of the slot\'s workers and their child processes, across restarts.',
  requests: 'HTTP requests answered by the slot\'s workers, across restarts.',
  shed: 'HTTP requests shed by the slot\'s workers (overload:), answered by superd before the app saw them, across restarts.',
  shedding: 'Whether the worker sheds new HTTP requests now (overload:): 1 or 0.',
  connections: 'Connections open in the worker\'s servers at its last report.',
  websockets: 'Of those, upgraded websocket connections.',
  memory: 'Resident memory of the worker and its child processes.',
  processes: 'Processes in the worker\'s tree (the worker and its children).',
  heapUsed: 'V8 heap used.',
  heapTotal: 'V8 heap allocated.',
  loop: 'Event-loop delay over the agent\'s last report interval, by quantile (1 = max).',
  elu: 'Event-loop utilisation over the agent\'s last report interval (0..1).',
  response: 'HTTP response time: the 0.99 quantile over the agent\'s last report interval; _count = requests answered.',
  resources: 'Active handles and requests keeping the event loop alive, by type.',
  reportAge: 'Seconds since the worker\'s agent last reported.',
  appWorkers: 'Workers of the app, by status.',
  autoscaleMin: 'The fewest workers the app autoscales to (instances: { min, max }).',
  autoscaleMax: 'The most workers the app autoscales to (instances: { min, max }).',
  autoscaleLast: 'When the app\'s last autoscale step was decided, seconds since the epoch, with its direction and outcome.',
  build: 'superd\'s version and the Node.js version of the daemon; always 1.',
};

/**
 * @param {{apps: object[]}} ls   the `ls` rows (status-view.js lsView), workers with `metrics`
 * @param {{cpuSeconds: number, rss: number, startTime: number, version: string, node: string}} daemon
 *   the daemon's own process
 * @param {object} [o]
 * @param {(app: string, slot: number) => ({cpuSeconds: number, httpRequests: number, httpSeconds: number, shedRequests?: number}|null)} [o.countersOf]
 *   the slot's counters (health/metrics-store.js SlotCounters)
 * @param {number} [o.now]  the time of the snapshot `ls` was built from (ms epoch)
 */
export function renderPrometheus(ls, daemon, { countersOf = () => null, now = Date.now() } = {}) {
  const f = new Families();
  for (const app of ls.apps) {
    const byStatus = {};
    for (const w of app.workers) {
      byStatus[w.status] = (byStatus[w.status] ?? 0) + 1;
      const l = { app: app.name, slot: w.slot };
      if (w.pid) f.add('superd_worker_info', 'gauge', HELP.info, { ...l, pid: w.pid }, 1);
      f.add('superd_worker_up', 'gauge', HELP.up, l, w.status === 'online' ? 1 : 0);
      f.add('superd_worker_restarts_total', 'counter', HELP.restarts, l, w.restarts);
      const counters = countersOf(app.name, w.slot);
      if (counters) {
        f.add('superd_worker_cpu_seconds_total', 'counter', HELP.cpu, l, counters.cpuSeconds);
        f.add('superd_worker_http_requests_total', 'counter', HELP.requests, l, counters.httpRequests);
        if (counters.shedRequests || w.metrics?.shedding != null) f.add('superd_worker_shed_requests_total', 'counter', HELP.shed, l, counters.shedRequests);
      }
      if (!w.pid) continue;
      if (w.uptime_ms > 0) f.add('superd_worker_start_time_seconds', 'gauge', HELP.start, l, (now - w.uptime_ms) / 1000);
      const m = w.metrics ?? {};
      f.add('superd_worker_resident_memory_bytes', 'gauge', HELP.memory, l, m.memory);
      f.add('superd_worker_processes', 'gauge', HELP.processes, l, m.processes);
      f.add('superd_worker_heap_used_bytes', 'gauge', HELP.heapUsed, l, m.heap_used);
      f.add('superd_worker_heap_total_bytes', 'gauge', HELP.heapTotal, l, m.heap_total);
      f.add('superd_worker_open_connections', 'gauge', HELP.connections, l, m.connections);
      f.add('superd_worker_websockets', 'gauge', HELP.websockets, l, m.websockets);
      for (const [q, key] of [['0.5', 'p50'], ['0.99', 'p99'], ['1', 'max']]) {
        f.add('superd_worker_event_loop_delay_seconds', 'summary', HELP.loop, { ...l, quantile: q }, seconds(m.loop_delay_ms?.[key]));
      }
      f.add('superd_worker_event_loop_utilization_ratio', 'gauge', HELP.elu, l, m.elu);
      if (m.shedding != null) f.add('superd_worker_shedding', 'gauge', HELP.shedding, l, m.shedding ? 1 : 0);
      if (m.report_age_ms != null) {
        f.add('superd_worker_http_response_time_seconds', 'summary', HELP.response, { ...l, quantile: '0.99' }, seconds(m.http_p99_ms) ?? Number.NaN);
        f.add('superd_worker_http_response_time_seconds', 'summary', HELP.response, l, counters?.httpSeconds ?? 0, '_sum');
        f.add('superd_worker_http_response_time_seconds', 'summary', HELP.response, l, counters?.httpRequests ?? 0, '_count');
      }
      for (const [type, n] of Object.entries(m.resources ?? {})) {
        f.add('superd_worker_active_resources', 'gauge', HELP.resources, { ...l, type }, n);
      }
      f.add('superd_worker_report_age_seconds', 'gauge', HELP.reportAge, l, seconds(m.report_age_ms));
    }
    for (const [status, n] of Object.entries(byStatus)) f.add('superd_app_workers', 'gauge', HELP.appWorkers, { app: app.name, status }, n);
    if (app.autoscale) {
      f.add('superd_app_autoscale_min_workers', 'gauge', HELP.autoscaleMin, { app: app.name }, app.autoscale.min);
      f.add('superd_app_autoscale_max_workers', 'gauge', HELP.autoscaleMax, { app: app.name }, app.autoscale.max);
      const last = app.autoscale.last;
      if (last) f.add('superd_app_autoscale_last_step_timestamp_seconds', 'gauge', HELP.autoscaleLast, { app: app.name, direction: last.direction, outcome: last.refused ? 'refused' : last.failed ? 'failed' : 'done' }, last.at / 1000);
    }
  }
  f.add('superd_build_info', 'gauge', HELP.build, { version: daemon.version, node: daemon.node }, 1);
  f.add('process_cpu_seconds_total', 'counter', 'CPU time of the superd daemon (user + system).', {}, daemon.cpuSeconds);
  f.add('process_resident_memory_bytes', 'gauge', 'Resident memory of the superd daemon.', {}, daemon.rss);
  f.add('process_start_time_seconds', 'gauge', 'Start time of the superd daemon, seconds since the epoch.', {}, daemon.startTime);
  return f.toString();
}
