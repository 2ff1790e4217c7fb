// PM2's vocabulary, as its own schema (pm2/lib/API/schema.json) and dump writer
// (pm2/lib/God/ActionMethods.js dumpProcessList) spell it, sorted by what superd does with
// each key. Used by `super import pm2`.
import { ALIASES } from '../config/pm2-keys.js';

/**
 * PM2's alternative spellings -> the key they stand for: the ecosystem schema's aliases
 * (config/schema.json `x-alias-of`), plus the names only PM2's CLI and dump use.
 */
export const PM2_ALIASES = Object.freeze({
  ...ALIASES,
  exec: 'script',
  interpreterArgs: 'node_args',
  pid: 'pid_file',
});

/**
 * Keys superd reads under their PM2 name (lib/config accepts them as PM2 keys; cron_restart
 * runs a rolling reload there, not PM2's hard restart; uid/gid need a daemon running as
 * root). Carried over as they are.
 */
export const PM2_NAMED_KEYS = new Set(['cron_restart', 'increment_var', 'namespace', 'source_map_support', 'autostart', 'log_file', 'uid', 'gid']);

/** Keys only PM2's own services and its process container read: never carried over. */
export const PM2_ONLY_KEYS = Object.freeze({
  vizion: 'PM2 service (git metadata)',
  pmx: 'PM2 service (its metrics agent; superd preloads its own)',
  automation: 'PM2 service (PM2.io)',
  deep_monitoring: 'PM2 service (PM2.io)',
  trace: 'PM2 service (PM2.io tracing)',
  disable_trace: 'PM2 service (PM2.io tracing)',
  v8: 'PM2 service (PM2.io)',
  event_loop_inspector: 'PM2 service (PM2.io)',
  io: 'PM2 service (PM2.io)',
  post_update: 'PM2 service (pm2 pull)',
  install_url: 'PM2 module system',
  treekill: 'superd always stops the whole process group',
  kill_retry_time: 'superd sends SIGKILL once kill_timeout has passed',
  windowsHide: 'Windows only',
  force: 'PM2 CLI flag',
  append_env_to_name: 'PM2 CLI behaviour',
  name_prefix: 'PM2 CLI behaviour',
  filter_env: 'superd passes the environment of `super start` on, then the app\'s env',
  watch_options: 'chokidar options are not configurable in superd (watch_delay, ignore_watch are)',
  pid_file: 'superd keeps no pid files per worker (super ls --json has the pids)',
  execute_command: 'PM2 internal',
  disable_source_map_support: 'superd enables source maps only on request (source_map_support)',
  username: 'run superd as that user',
  write: 'PM2 internal',
  deploy: 'superd has no deploy command; keep using your deploy tool, then `super reload <app>`',
});

/**
 * The value PM2 itself gives these keys. A dump records every key, set or not; one at its
 * default asked PM2 for nothing, so it is dropped silently rather than listed.
 */
export const PM2_DEFAULTS = Object.freeze({
  vizion: true,
  pmx: true,
  automation: true,
  treekill: true,
  windowsHide: true,
  kill_retry_time: 100,
  autostart: true,
  autorestart: true,
  watch: false,
  instance_var: 'NODE_APP_INSTANCE',
  namespace: 'default',
  filter_env: [],
  node_args: [],
});

/**
 * The configuration keys of a dump entry (a pm2_env): what `pm2 start` was asked for.
 * Everything else in it is runtime state or a copy of an environment variable.
 */
export const DUMP_CONFIG_KEYS = [
  'name', 'namespace', 'args', 'node_args', 'instance_var', 'exec_mode', 'env',
  'max_memory_restart', 'min_uptime', 'max_restarts', 'restart_delay', 'exp_backoff_restart_delay',
  'kill_timeout', 'listen_timeout', 'wait_ready', 'shutdown_with_message', 'autorestart',
  'autostart', 'stop_exit_codes', 'watch', 'ignore_watch', 'watch_delay', 'watch_options',
  'cron_restart', 'increment_var', 'source_map_support', 'merge_logs', 'log_date_format',
  'log_type', 'disable_logs', 'time', 'vizion', 'pmx', 'automation', 'treekill', 'windowsHide',
  'kill_retry_time', 'filter_env', 'uid', 'gid', 'deep_monitoring', 'trace', 'disable_trace',
  'v8', 'event_loop_inspector', 'post_update', 'disable_source_map_support', 'execute_command',
];
