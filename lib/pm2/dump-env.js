// Which environment variables of a PM2 dump entry belong in the imported app's `env`.
// PM2 records the whole environment of the shell that ran `pm2 start` (plus the app's own
// env) in pm2_env.env, with nothing saying which is which. Kept: what the app needs that
// superd's workers would not get anyway. Left out:
//   - PM2's own variables (PM2_HOME, pm_id, NODE_APP_INSTANCE, unique_id, ...);
//   - the variables of a login session (HOME, PATH, SHELL, TERM, LANG, SSH_*, ...);
//   - variables equal to the importing shell's: superd's workers inherit the environment of
//     the `super start` that added their app, so those reach them already. Their names are
//     listed, for the user to add back those a boot-time daemon (systemd) would lack.

const PM2_VARS = new Set(['NODE_APP_INSTANCE', 'unique_id', 'status', 'name', 'namespace', 'km_link', 'vizion_running', 'restart_time', 'unstable_restarts', 'created_at', 'pm_uptime', 'exit_code']);
const PM2_PREFIXES = ['PM2_', 'pm_', 'axm_'];

const SESSION_VARS = new Set([
  'HOME', 'PATH', 'SHELL', 'TERM', 'LANG', 'LANGUAGE', 'USER', 'LOGNAME', 'MAIL', 'HOSTNAME',
  'PWD', 'OLDPWD', 'SHLVL', '_', 'TMPDIR', 'DISPLAY', 'EDITOR', 'VISUAL', 'PAGER', 'LESS',
  'LESSOPEN', 'LESSCLOSE', 'LS_COLORS', 'COLORTERM', 'COLUMNS', 'LINES', 'MOTD_SHOWN',
  'DBUS_SESSION_BUS_ADDRESS', 'WINDOWID', 'STY', 'TMUX', 'TMUX_PANE', 'HISTSIZE', 'HISTFILESIZE',
  'HISTCONTROL', 'INVOCATION_ID', 'JOURNAL_STREAM', 'MANPATH', 'INFOPATH',
]);
const SESSION_PREFIXES = ['LC_', 'SSH_', 'XDG_', 'SUDO_', 'TERM_PROGRAM', 'NVM_', 'GPG_', 'VSCODE_'];

const isPm2Var = (name, instanceVar) => PM2_VARS.has(name) || name === instanceVar || PM2_PREFIXES.some((p) => name.startsWith(p));
const isSessionVar = (name) => SESSION_VARS.has(name) || SESSION_PREFIXES.some((p) => name.startsWith(p));

/**
 * @param {object} entry  a dump entry (pm2_env)
 * @param {Record<string, string|undefined>} here  the importing process's environment
 * @returns {{ env: Record<string, string|number|boolean>, sameAsHere: string[] }}
 */
export function dumpEnv(entry, here) {
  const env = {};
  const sameAsHere = [];
  const recorded = entry.env && typeof entry.env === 'object' ? entry.env : {};
  for (const [name, value] of Object.entries(recorded)) {
    // PM2 keeps objects in there too (a per-app stash named after the app): not variables.
    if (!['string', 'number', 'boolean'].includes(typeof value)) continue;
    if (isPm2Var(name, entry.instance_var) || isSessionVar(name)) continue;
    if (here[name] === String(value)) sameAsHere.push(name);
    else env[name] = value;
  }
  return { env, sameAsHere };
}
