// The keys of a PM2 dump (pm2/lib/God/ActionMethods.js dumpProcessList writes every key of
// each process, set or not): which are configuration, and PM2's own default of some, so
// that a key at its default is not listed as left out. What superd does with each PM2 key
// is lib/config/pm2-keys.js's table.

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
