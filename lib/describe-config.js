// The settings block of `super describe`, and the dashboard's settings table: what the
// app's file set, in the units people write (`8s`, `300M`), then the defaults in force, and
// none of the daemon's bookkeeping (which fields say what was written, where the app came
// from, log settings already shown above as paths). Shared by the CLI and the dashboard.

/** Keys the daemon keeps for itself: shown elsewhere in describe, or not at all. */
export const INTERNAL = new Set(['name', 'restart_delay_set', 'instances_spec', 'source', 'logs', 'out_file', 'error_file']);
const DURATIONS = new Set(['min_uptime', 'restart_delay', 'exp_backoff_restart_delay', 'kill_timeout', 'listen_timeout',
  'watch_delay', 'probation', 'retire_interval', 'drain_timeout', 'shutdown_delay', 'metrics_interval', 'unresponsive_timeout']);
const SIZES = new Set(['max_memory_restart', 'log_max_size']);

/** What an app that sets nothing runs with (test/unit/describe-config.test.js keeps it true to lib/config). */
export const DEFAULTS = Object.freeze({
  args: [], instances: 1, exec_mode: 'cluster', interpreter: 'node', node_path: null, node_args: [], source_map_support: false,
  filter_env: false, instance_var: 'NODE_APP_INSTANCE', increment_var: null, autorestart: true, autostart: true, cron_restart: null,
  namespace: 'default', uid: null, gid: null, allow_privileged_ports: false, share_port: false, stop_exit_codes: [], min_uptime: 1000, max_restarts: 16, restart_delay: 0,
  exp_backoff_restart_delay: 0, kill_timeout: 1600, kill_signal: 'SIGINT', listen_timeout: 8000, wait_ready: false,
  ready_on: 'listen', reload_ready_on: null, watch: [], ignore_watch: [], watch_delay: 1000, watch_options: null, max_memory_restart: null, max_requests: null, max_requests_jitter: 0, merge_logs: true,
  log_date_format: null, log_type: 'raw', disable_logs: false, time: false, log_max_size: null, log_retain: null,
  log_rotate: null, log_retain_days: null, cpu_affinity: null, reload_parallel: 1, probation: 250,
  reload_strategy: 'rolling', max_surge: '100%', max_unavailable: 0, retire_interval: null, drain_timeout: 10000, shutdown_delay: 0,
  shutdown_with_message: false, metrics_interval: null, unresponsive_timeout: null, profile_on_stall: null, sticky: null, overload: null, autoscale: null,
});

/** 8000 -> 8s, 1600 -> 1.6s, 250 -> 250ms, 120000 -> 2m, 5400000 -> 1.5h */
export function humanDuration(ms) {
  if (ms < 1000) return `${ms}ms`;
  for (const [unit, per] of /** @type {[string, number][]} */ ([['h', 3_600_000], ['m', 60_000]])) if (ms >= per && ms % (per / 10) === 0) return `${ms / per}${unit}`;
  return ms % 1000 === 0 ? `${ms / 1000}s` : `${+(ms / 1000).toFixed(3)}s`;
}

/** 314572800 -> 300M, 1073741824 -> 1G, 1536 -> 1.5K, 1000 -> 1000 */
export function humanSize(bytes) {
  for (const [unit, per] of /** @type {[string, number][]} */ ([['T', 1024 ** 4], ['G', 1024 ** 3], ['M', 1024 ** 2], ['K', 1024]])) {
    if (bytes >= per && (bytes / per) * 10 === Math.round((bytes / per) * 10)) return `${bytes / per}${unit}`;
  }
  return String(bytes);
}

/** `instances` as written: 4, max, -1, or { min: 1, max: 4 }. */
export function instancesWritten(spec) {
  return spec && typeof spec === 'object' ? `{ min: ${spec.min}, max: ${spec.max} }` : String(spec);
}

/** autoscale's bounds and rules: `1-4 workers; up elu 0.8 for 10s; down elu 0.3 for 2m; cooldown 30s`. */
export function autoscaleText({ min, max, up, down, cooldown }) {
  const rule = (r) => [r.elu !== null && `elu ${r.elu}`, r.loop_delay !== null && `loop_delay ${humanDuration(r.loop_delay)}`, r.inflight !== null && `inflight ${r.inflight}`]
    .filter(Boolean).join(' or ');
  return `${min}-${max} workers; up ${rule(up)} for ${humanDuration(up.for)}; down ${rule(down).replace(/ or /g, ' and ')} for ${humanDuration(down.for)}; cooldown ${humanDuration(cooldown)}`;
}

function show(key, v, config) {
  if (v === null || v === undefined || (key === 'exp_backoff_restart_delay' && v === 0)) return 'off';
  if (key === 'instances' && config.instances_spec !== undefined && config.instances_spec !== v) return `${v} (${instancesWritten(config.instances_spec)} as written)`;
  if (key === 'autoscale') return autoscaleText(v);
  if (key === 'sticky') return v.by === 'cookie' ? `cookie ${v.cookie}` : v.by;
  if (DURATIONS.has(key) && typeof v === 'number') return humanDuration(v);
  if (SIZES.has(key) && typeof v === 'number') return humanSize(v);
  if (typeof v === 'string' && /^[\w@%+=:,./~*-]+$/.test(v)) return v;
  return JSON.stringify(v);
}

const same = (a, b) => JSON.stringify(a) === JSON.stringify(b);

/**
 * One row per setting, those the file set first, then the defaults in force.
 * @param {Record<string, unknown>} config  the app's config as describe returns it (secrets masked)
 * @returns {{key: string, value: string, resolved: string|null, default: boolean}[]}  value: as
 *   people write it (`8s`, `max`); resolved: what the daemon runs with, when it reads otherwise
 *   (`8000` ms, 2 workers); default: not set by the file
 */
export function settingsRows(config) {
  /** @type {{key: string, value: string, resolved: string|null, default: boolean}[]} */
  const set = [];
  /** @type {typeof set} */
  const defaults = [];
  for (const [key, v] of Object.entries(config)) {
    if (INTERNAL.has(key)) continue;
    if (key === 'restart_delay' && config.restart_delay_set === false) {
      defaults.push({ key, value: 'crash-loop backoff (100ms after the 2nd early exit in a row, doubling to 2s)', resolved: null, default: true });
      continue;
    }
    if (key === 'env') {
      // values as the daemon sent them: secrets already masked
      const vars = Object.entries(v ?? {}).map(([k, x]) => `${k}=${show('', x, config)}`);
      if (vars.length) set.push({ key, value: vars.join(' '), resolved: null, default: false });
      continue;
    }
    const isDefault = Object.hasOwn(DEFAULTS, key) && same(v, DEFAULTS[key]);
    const written = key === 'instances' && config.instances_spec !== undefined ? instancesWritten(config.instances_spec) : show(key, v, config);
    const raw = v === null || v === undefined ? null : typeof v === 'string' ? v : JSON.stringify(v);
    const resolved = raw !== null && raw !== written && key !== 'autoscale' ? (DURATIONS.has(key) ? `${raw} ms` : SIZES.has(key) ? `${raw} bytes` : raw) : null;
    (isDefault ? defaults : set).push({ key, value: written, resolved, default: isDefault });
  }
  return [...set, ...defaults];
}

/**
 * @param {Record<string, unknown>} config  the app's config as describe returns it (secrets masked)
 * @returns {string[]}  lines: `  key: value` for each setting that is not a default, then the defaults
 */
export function settingsLines(config) {
  const rows = settingsRows(config);
  const set = rows.filter((r) => !r.default).map((r) => `  ${r.key}: ${r.key === 'instances' ? show(r.key, config.instances, config) : r.value}`);
  const defaults = rows.filter((r) => r.default).map((r) => (r.key === 'restart_delay' && config.restart_delay_set === false ? `restart_delay: ${r.value}` : `${r.key} ${r.value}`));
  return [...set, ...wrap(`defaults: ${defaults.join(', ')}`, 96).map((l, i) => (i ? `    ${l}` : `  ${l}`))];
}

/** `text` in lines of at most `width` characters, broken after commas. */
function wrap(text, width) {
  const lines = [''];
  for (const part of text.split(/(?<=, )/)) {
    const last = lines[lines.length - 1];
    if (last.length + part.length > width && last) lines.push('');
    lines[lines.length - 1] += part;
  }
  return lines.map((l) => l.trimEnd());
}
