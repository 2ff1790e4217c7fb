// Which environment variables of a PM2 dump entry belong in the imported app's `env`.
// PM2 records the whole environment of the shell that ran `pm2 start` (plus the app's own
// env) in pm2_env.env, with nothing saying which is which. Kept: what the app needs that
// superd's workers would not get anyway. Left out:
//   - PM2's own variables (PM2_HOME, pm_id, NODE_APP_INSTANCE, unique_id, ...) and the
//     variable named after the app that holds its PM2 module settings;
//   - the variables of a login session (HOME, PATH, SHELL, TERM, LANG, SSH_*, ...);
//   - variables equal to the importing shell's: superd's workers inherit the environment of
//     the `super start` that added their app, so those reach them already. Their names are
//     listed, for the user to add back those a boot-time daemon (systemd) would lack.

// PM2 copies every field of a process's pm2_env into that process's environment, so a
// `pm2 start` run from inside a PM2-managed process (a deploy script, a shell opened from
// one) records PM2's own fields as variables of the new app (lib/Common.js safeExtend
// skips only some of them). The fields PM2 sets on a process (lib/God.js prepare,
// executeApp, injectVariables, handleExit; lib/Common.js resolveAppAttributes; its
// per-app keys in lib/API/schema.json) are never the user's variables.
const PM2_FIELDS = new Set([
  'NODE_APP_INSTANCE', 'unique_id', 'status', 'name', 'namespace', 'km_link', 'vizion_running',
  'restart_time', 'unstable_restarts', 'created_at', 'pm_uptime', 'exit_code', 'prev_restart_delay',
  'versioning', 'version', 'node_version', '_pm2_version', '_km_monitored', '_tree_pids', 'restart_task',
  'exec_interpreter', 'exec_mode', 'instances', 'instance_var', 'increment_var', 'pmx_module', 'command',
  'username', 'windowsHide', 'kill_retry_time', 'treekill', 'automation', 'pmx', 'vizion', 'autostart',
  'autorestart', 'watch', 'ignore_watch', 'watch_delay', 'merge_logs', 'filter_env', 'node_args', 'args',
  'script', 'cwd', 'env', 'min_uptime', 'max_restarts', 'max_memory_restart', 'restart_delay',
  'exp_backoff_restart_delay', 'kill_timeout', 'listen_timeout', 'wait_ready', 'shutdown_with_message',
  'stop_exit_codes', 'cron_restart', 'source_map_support', 'disable_source_map_support', 'log_date_format',
  'log_type', 'disable_logs', 'time', 'out_file', 'error_file', 'log_file', 'uid', 'gid',
]);
const PM2_PREFIXES = ['PM2_', 'pm_', 'axm_'];

const SESSION_VARS = new Set([
  'HOME', 'PATH', 'SHELL', 'TERM', 'LANG', 'LANGUAGE', 'USER', 'LOGNAME', 'MAIL', 'HOSTNAME',
  'PWD', 'OLDPWD', 'SHLVL', '_', 'TMPDIR', 'DISPLAY', 'EDITOR', 'VISUAL', 'PAGER', 'LESS',
  'LESSOPEN', 'LESSCLOSE', 'LS_COLORS', 'COLORTERM', 'COLUMNS', 'LINES', 'MOTD_SHOWN',
  'DBUS_SESSION_BUS_ADDRESS', 'WINDOWID', 'STY', 'TMUX', 'TMUX_PANE', 'HISTSIZE', 'HISTFILESIZE',
  'HISTCONTROL', 'INVOCATION_ID', 'JOURNAL_STREAM', 'MANPATH', 'INFOPATH',
]);
const SESSION_PREFIXES = ['LC_', 'SSH_', 'XDG_', 'SUDO_', 'TERM_PROGRAM', 'NVM_', 'GPG_', 'VSCODE_'];

const isPm2Var = (name, instanceVar) => PM2_FIELDS.has(name) || name === instanceVar || PM2_PREFIXES.some((p) => name.startsWith(p));
const isSessionVar = (name) => SESSION_VARS.has(name) || SESSION_PREFIXES.some((p) => name.startsWith(p));

/**
 * PM2 adds a variable named after the app holding its module settings as JSON (`api: '{}'`
 * for an app named api: lib/API/Modules/NPM.js getModuleConf, stringified by Common.js
 * mergeEnvironmentVariables). The settings themselves (`pm2 set <app>:<key> <value>`) come
 * as variables of their own, and are kept: the user set them.
 */
function isModuleStash(name, value, appName) {
  if (name !== appName || typeof value !== 'string') return false;
  try {
    const parsed = JSON.parse(value);
    return parsed !== null && typeof parsed === 'object' && !Array.isArray(parsed);
  } catch {
    return false;
  }
}

/**
 * @param {object} entry  a dump entry (pm2_env)
 * @param {Record<string, string|undefined>} here  the importing process's environment
 * @returns {{ env: Record<string, string|number|boolean>, sameAsHere: string[] }}
 */
export function dumpEnv(entry, here) {
  /** @type {Record<string, string|number|boolean>} */
  const env = {};
  const sameAsHere = [];
  const recorded = entry.env && typeof entry.env === 'object' ? entry.env : {};
  for (const [name, value] of Object.entries(recorded)) {
    // PM2 keeps objects in there too (a per-app stash named after the app): not variables.
    if (!['string', 'number', 'boolean'].includes(typeof value)) continue;
    if (isPm2Var(name, entry.instance_var) || isSessionVar(name) || isModuleStash(name, value, entry.name)) continue;
    if (here[name] === String(value)) sameAsHere.push(name);
    else env[name] = value;
  }
  return { env, sameAsHere };
}
