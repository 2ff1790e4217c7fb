// Which ecosystem files superd reads with PM2's semantics (pm2-reading.js), and the part
// of PM2's own key table (PM2 7, lib/API/schema.json) that reading needs.
//
// The rule: a .js/.cjs/.mjs/.ts/.cts/.mts or .json file is PM2's format (PM2 reads those);
// so is a YAML file, unless it uses a key only superd has (`ready_on`, `logs:`, ...):
// a file that does was written for superd, and is read with superd's own strictness.

import path from 'node:path';
import { ecosystemSchema } from './schema-check.js';

/** PM2's app keys (lib/API/schema.json), without their other names. */
export const PM2_KEYS = Object.freeze([
  'script', 'name', 'name_prefix', 'filter_env', 'namespace', 'install_url', 'cwd', 'args',
  'exec_interpreter', 'node_args', 'out_file', 'error_file', 'log_file', 'disable_logs', 'log_type',
  'log_date_format', 'time', 'env', 'max_memory_restart', 'pid_file', 'restart_delay',
  'exp_backoff_restart_delay', 'source_map_support', 'disable_source_map_support', 'wait_ready',
  'instances', 'kill_timeout', 'shutdown_with_message', 'listen_timeout', 'cron_restart', 'merge_logs',
  'vizion', 'autostart', 'autorestart', 'stop_exit_codes', 'watch_delay', 'watch', 'ignore_watch',
  'watch_options', 'min_uptime', 'max_restarts', 'execute_command', 'exec_mode', 'force',
  'append_env_to_name', 'post_update', 'trace', 'disable_trace', 'v8', 'event_loop_inspector',
  'deep_monitoring', 'increment_var', 'instance_var', 'pmx', 'automation', 'treekill', 'port',
  'username', 'uid', 'gid', 'windowsHide', 'kill_retry_time', 'write', 'io',
]);

/**
 * PM2 key -> its other names, in the order PM2 tries them after the key itself (its
 * Config.schema getter puts the listed aliases in reverse, then the camelCase name):
 * the first with a truthy value wins (Config.validateJSON: `conf[k] || (conf[k] = json[alias])`).
 * `cmd` and `command` stand for script when script is absent (Common.verifyConfs).
 */
export const PM2_ALIASES = Object.freeze({
  script: ['cmd', 'command', 'exec'],
  exec_interpreter: ['interpreter'],
  node_args: ['interpreter_args', 'interpreterArgs'],
  out_file: ['out_log', 'output', 'out'],
  error_file: ['err_log', 'err_file', 'err', 'error'],
  log_file: ['log'],
  pid_file: ['pid'],
  cron_restart: ['cron'],
  merge_logs: ['combine_logs'],
  uid: ['user'],
});

/** PM2 keys whose schema type includes number: PM2 reads a numeric string there as the number. */
export const PM2_NUMBER_KEYS = Object.freeze(new Set([
  'instances', 'port', 'max_restarts', 'restart_delay', 'exp_backoff_restart_delay', 'kill_timeout',
  'listen_timeout', 'watch_delay', 'min_uptime', 'max_memory_restart', 'cron_restart', 'uid', 'gid',
  'stop_exit_codes', 'kill_retry_time',
]));

/** `max_memory_restart` -> `maxMemoryRestart`, as PM2 derives it (a part of one letter stays lower case). */
export const camelCase = (key) => key.split('_').map((n, i) => (i !== 0 && n.length > 1 ? n[0].toUpperCase() + n.slice(1) : n)).join('');

/** Every name PM2 takes for the key `key`, in its order of precedence. */
export const pm2Names = (key) => [...new Set([key, ...(PM2_ALIASES[key] ?? []), camelCase(key)])];

const PM2_TOP = new Set(['apps', 'pm2', 'deploy', 'static']);
const SCHEMA = ecosystemSchema();
const PM2_APP_NAMES = new Set(PM2_KEYS.flatMap(pm2Names));
/** App keys only superd has (ready_on, probation, ...), and top-level ones (logs, control, ...). */
const SUPERD_ONLY = {
  app: new Set(Object.keys(SCHEMA.$defs.app.properties).filter((k) => !PM2_APP_NAMES.has(k))),
  top: new Set(Object.keys(SCHEMA.properties).filter((k) => !PM2_TOP.has(k))),
};

/**
 * Whether to read this file with PM2's semantics.
 * @param {string} file
 * @param {unknown} data  the parsed file
 * @returns {boolean}
 */
export function isPm2Format(file, data) {
  if (!/^\.ya?ml$/i.test(path.extname(file))) return true;
  return !usesSuperdKey(data);
}

function usesSuperdKey(data) {
  if (isMap(data) && Object.keys(data).some((k) => SUPERD_ONLY.top.has(k))) return true;
  // The apps in any shape PM2 takes: a list, `apps:` as a list or one app, the file as one app.
  const apps = Array.isArray(data) ? data : isMap(data) ? [data, ...[].concat(data.apps ?? [])] : [];
  return apps.some((app) => isMap(app) && Object.keys(app).some((k) => SUPERD_ONLY.app.has(k)));
}

export const isMap = (v) => v !== null && typeof v === 'object' && !Array.isArray(v);
