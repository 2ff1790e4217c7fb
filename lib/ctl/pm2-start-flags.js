// PM2's `pm2 start` flags (PM2 7: lib/binaries/CLI.js), for `super start <script>`: each
// maps to the app key it sets, is ignored with a warning (it changes nothing a user would
// miss), or is refused with the reason. No imports: bin/super.js reads the table to build
// `super start --help`, and the mapping runs in the CLI before any daemon is asked.

const number = (v) => (/^\d+$/.test(v) ? Number(v) : v); // PM2 takes bare numbers as ms or bytes
const seconds = (v) => (/^\d+(\.\d+)?$/.test(v) ? Math.round(Number(v) * 1000) : v); // --watch-delay 4 is 4 s

/**
 * [flags as commander takes them, help, what it does]: `key` (with `value` fixed, or
 * `convert`), `ignored: why`, or `refused: why`. A `--no-x` flag counts only when given.
 * @typedef {[string, string, {key?: string, value?: unknown, convert?: (v: any) => unknown, ignored?: string, refused?: string}]} StartFlag
 */
export const PM2_START_FLAGS = Object.freeze(/** @type {StartFlag[]} */ ([
  ['--interpreter <interpreter>', 'run the script with this program (node, python3, a path)', { key: 'interpreter' }],
  ['--node-args <args>', 'options of node itself ("--max-old-space-size=512")', { key: 'node_args' }],
  ['--interpreter-args <args>', 'options of the interpreter (as --node-args)', { key: 'node_args' }],
  ['-x, --execute-command', 'fork mode: one process, not a cluster', { key: 'exec_mode', value: 'fork' }],
  ['--max-memory-restart <size>', 'reload a worker above this memory (200M, 1G; bytes)', { key: 'max_memory_restart', convert: number }],
  ['--no-autorestart', 'do not restart the app when it exits', { key: 'autorestart', value: false }],
  ['--no-autostart', 'register the app without starting it', { key: 'autostart', value: false }],
  ['-c, --cron <pattern>', 'rolling reload on a cron schedule ("0 3 * * *")', { key: 'cron_restart' }],
  ['--cron-restart <pattern>', 'as --cron', { key: 'cron_restart' }],
  ['--ignore-watch <paths>', 'paths or globs --watch does not watch', { key: 'ignore_watch' }],
  ['--watch-delay <delay>', 'wait this long after a change before reloading (4 = 4 s, 500ms)', { key: 'watch_delay', convert: seconds }],
  ['-o, --output <file>', 'stdout log file', { key: 'out_file' }],
  ['-e, --error <file>', 'stderr log file', { key: 'error_file' }],
  ['-l, --log [file]', 'one log file for both streams', { key: 'log_file' }],
  ['--log-type <type>', 'raw or json log lines', { key: 'log_type' }],
  ['--log-date-format <format>', 'prefix each log line with the time in this format', { key: 'log_date_format' }],
  ['--time', 'prefix each log line with the time', { key: 'time', value: true }],
  ['--merge-logs', 'one log file for all instances (superd\'s default)', { key: 'merge_logs', value: true }],
  ['--disable-logs', 'keep no log files', { key: 'disable_logs', value: true }],
  ['--wait-ready', 'ready when the app calls ready() or process.send(\'ready\')', { key: 'wait_ready', value: true }],
  ['--listen-timeout <delay>', 'how long a worker has to become ready (ms, or 10s)', { key: 'listen_timeout', convert: number }],
  ['-k, --kill-timeout <delay>', 'how long a stopping worker has before SIGKILL (ms, or 5s)', { key: 'kill_timeout', convert: number }],
  ['--shutdown-with-message', 'ask workers to stop with a \'shutdown\' message, not a signal', { key: 'shutdown_with_message', value: true }],
  ['--restart-delay <delay>', 'wait this long before restarting a crashed worker (ms, or 1s)', { key: 'restart_delay', convert: number }],
  ['--exp-backoff-restart-delay <delay>', 'first delay of an exponential restart backoff (ms)', { key: 'exp_backoff_restart_delay', convert: number }],
  ['--max-restarts <count>', 'errored after this many quick restarts in a row', { key: 'max_restarts', convert: number }],
  ['--min-uptime <delay>', 'a worker up less than this counts as a quick restart (ms, or 1s)', { key: 'min_uptime', convert: number }],
  ['--stop-exit-codes <codes...>', 'exit codes after which the app is not restarted', { key: 'stop_exit_codes', convert: (v) => v.map(number) }],
  ['--namespace <ns>', 'the app\'s namespace (a target of stop, reload...)', { key: 'namespace' }],
  ['--instance-var <name>', 'the variable holding each worker\'s instance number', { key: 'instance_var' }],
  ['--cwd <dir>', 'run the script from this directory', { key: 'cwd' }],
  ['--uid <user>', 'run the workers as this user (daemon as root)', { key: 'uid', convert: number }],
  ['-u, --user <user>', 'as --uid', { key: 'uid', convert: number }],
  ['--gid <group>', 'run the workers with this group', { key: 'gid', convert: number }],
  ['--source-map-support', 'stack traces through source maps', { key: 'source_map_support', value: true }],
  ['--disable-source-map-support', 'no source maps', { key: 'disable_source_map_support', value: true }],
  ['--no-vizion', 'ignored (PM2\'s versioning metadata)', { ignored: 'PM2\'s versioning metadata' }],
  ['--no-pmx', 'ignored (PM2\'s monitoring agent)', { ignored: 'PM2\'s monitoring agent; superd\'s agent is always on' }],
  ['--no-automation', 'ignored (PM2\'s monitoring agent)', { ignored: 'PM2\'s monitoring agent; superd\'s agent is always on' }],
  ['--no-treekill', 'ignored (superd stops a worker\'s whole process group)', { ignored: 'superd always stops a worker\'s whole process group' }],
  ['--trace', 'ignored (PM2.io)', { ignored: 'PM2.io tracing' }],
  ['--disable-trace', 'ignored (PM2.io)', { ignored: 'PM2.io tracing' }],
  ['--v8', 'ignored (PM2.io)', { ignored: 'PM2.io metrics' }],
  ['--event-loop-inspector', 'ignored (PM2.io)', { ignored: 'PM2.io metrics; superd reports event-loop delay in ls and monit' }],
  ['--deep-monitoring', 'ignored (PM2.io)', { ignored: 'PM2.io metrics' }],
  ['--filter-env <names>', 'ignored (PM2\'s filtering of its own environment)', { ignored: 'superd gives workers the caller\'s environment; unset what they must not see' }],
  ['-p, --pid <file>', 'ignored (superd keeps pids: super ls --json)', { ignored: 'superd keeps the pids in the daemon (super ls --json)' }],
  ['--parallel <n>', 'ignored on start', { ignored: 'it is for reload and restart; superd reloads with reload_parallel' }],
  ['-s, --silent', 'ignored', { ignored: 'superd prints little already; use --json for scripts' }],
  ['-m, --mini-list', 'ignored', { ignored: 'superd prints one table' }],
  ['--sort <field>', 'ignored', { ignored: 'superd lists apps in the order they were added' }],
  ['--no-color', 'ignored', { ignored: 'superd prints no colours when NO_COLOR is set or not on a terminal' }],
  ['--attach', 'refused: use super logs -f', { refused: 'superd does not attach to logs on start; run super logs <app> -f' }],
  ['-f, --force', 'refused: app names are unique', { refused: 'superd runs one app per name; start a second copy under another --name' }],
  ['-a, --update-env', 'refused: use super reload --update-env', { refused: 'to give a running app this shell\'s environment, run super reload <app> --update-env' }],
  ['--ext <extensions>', 'refused: use --ignore-watch', { refused: 'superd watches every file; exclude the rest with --ignore-watch' }],
  // --daemon before --no-daemon: commander then leaves the value unset when neither is given.
  ...['--container', '--dist', '--image-name <name>', '--node-version <major>', '--dockerdaemon', '--fresh', '--daemon'].map((flags) => [flags, 'refused (PM2\'s Docker mode)', { refused: 'PM2\'s Docker mode; superd ships a Dockerfile (super run in a container)' }]),
  ['--no-daemon', 'refused: use super run', { refused: 'for a foreground daemon, run super run <ecosystem file>' }],
  ['-w, --write', 'refused: use super import pm2', { refused: 'superd does not write a config from start flags; write an ecosystem file, or super import pm2' }],
  ...['--hp <dir>', '--wait-ip', '--service-name <name>'].map((flags) => [flags, 'refused (pm2 startup\'s)', { refused: 'a flag of pm2 startup; see super startup --help' }]),
]));

/** A flag's long form (`-i, --instances <n>` -> `--instances`); every row of the table has one. */
export function longFlag(flags) {
  return /--[\w-]+/.exec(flags)?.[0] ?? flags;
}

/** commander's camelCase name of a flag's long form (`--no-x` -> x, `--kill-timeout` -> killTimeout). */
export function optionName(flags) {
  const long = longFlag(flags).slice(2).replace(/^no-/, '');
  return long.replace(/-([a-z0-9])/g, (_, c) => c.toUpperCase());
}

/**
 * The PM2 flags commander parsed -> the app keys they set, and warnings for the ignored.
 * @param {Record<string, unknown>} opts  commander's options of `start`
 * @returns {{ keys: Record<string, unknown>, warnings: string[], refused: string|null, given: string[] }}
 *   refused: `<flag>: <why>` for the first flag superd cannot honour; given: the long flags used
 */
export function pm2StartKeys(opts) {
  /** @type {Record<string, unknown>} */
  const keys = {};
  const warnings = [];
  const given = [];
  for (const [flags, , what] of PM2_START_FLAGS) {
    const name = optionName(flags);
    const negated = flags.includes('--no-');
    const v = opts[name];
    if (v === undefined || (negated ? v !== false : v === false)) continue; // false: its --no- twin's
    const flag = longFlag(flags);
    if (what.refused) return { keys, warnings, refused: `${flag}: ${what.refused}`, given };
    given.push(flag);
    if (what.ignored) warnings.push(`${flag}: ignored (${what.ignored})`);
    else if (what.key !== undefined) keys[what.key] = what.value ?? (what.convert ? what.convert(v) : v); // a row neither ignored nor refused has a key
  }
  return { keys, warnings, refused: null, given };
}

/**
 * The flags that give these app keys back (`describe` prints a file-less start's command line).
 * @param {Record<string, unknown>} keys  as pm2StartKeys made them, with --cluster's and --ready-on's
 * @returns {string[]}
 */
export function flagsOf(keys) {
  const out = [];
  for (const [key, v] of Object.entries(keys)) {
    if (key === 'exec_mode') out.push(v === 'cluster' ? '--cluster' : '-x');
    else if (key === 'ready_on') out.push('--ready-on', String(v));
    else {
      const row = PM2_START_FLAGS.find(([, , what]) => what.key === key && (what.value === undefined || what.value === v));
      const flag = row && longFlag(row[0]);
      if (!flag) continue;
      out.push(flag);
      if (row[2].value === undefined && v !== true) out.push(...(Array.isArray(v) ? v : [v]).map(String));
    }
  }
  return out;
}
