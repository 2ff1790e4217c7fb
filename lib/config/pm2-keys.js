// PM2's keys, once: every key of PM2's ecosystem schema (PM2 7, lib/API/schema.json), its
// other names, and what superd does with it. Read by the ecosystem reader (lib/config:
// aliases, PM2-only warnings, PM2's reading of a PM2 file, pm2-reading.js) and by `super
// import pm2` (lib/pm2: what it carries over and why it leaves a key out). config/schema.json
// spells the same aliases (`x-alias-of`) and reasons (`x-pm2-only`) for editors, and
// docs/pm2.md lists the reasons: test/config/pm2-keys.test.js keeps both equal to this table.

import { ecosystemSchema } from './schema-check.js';

/**
 * PM2 app key -> how superd treats it:
 *   names   its other names, in the order PM2 tries them after the key itself (its
 *           Config.schema getter puts the listed aliases in reverse); the first with a
 *           truthy value wins (Config.validateJSON: `conf[k] || (conf[k] = json[alias])`).
 *           `cmd` and `command` stand for script when script is absent (Common.verifyConfs).
 *   superd  superd's name for it, when not the key itself
 *   number  PM2's schema type includes number: PM2 reads a numeric string there as the number
 *   only    a PM2-only key (it means something to PM2's own services only): accepted,
 *           warned about and ignored by the ecosystem reader, left out by `super import pm2`;
 *           the text says why
 * Every other key superd honours, under this name or `superd`'s.
 * @type {Readonly<Record<string, {names?: string[], superd?: string, number?: true, only?: string}>>}
 */
export const PM2_APP_KEYS = Object.freeze({
  script: { names: ['cmd', 'command', 'exec'] },
  name: {},
  name_prefix: { only: "PM2's CLI naming" },
  filter_env: {},
  namespace: {},
  install_url: { only: "PM2's module install" },
  cwd: {},
  args: {},
  exec_interpreter: { names: ['interpreter'], superd: 'interpreter' },
  node_args: { names: ['interpreter_args', 'interpreterArgs'] },
  out_file: { names: ['out_log', 'output', 'out'] },
  error_file: { names: ['err_log', 'err_file', 'err', 'error'] },
  log_file: { names: ['log'] },
  disable_logs: {},
  log_type: {},
  log_date_format: {},
  time: {},
  env: {},
  max_memory_restart: { number: true },
  pid_file: { names: ['pid'], only: 'superd keeps pids in the daemon (super ls --json)' },
  restart_delay: { number: true },
  exp_backoff_restart_delay: { number: true },
  source_map_support: {},
  disable_source_map_support: {},
  wait_ready: {},
  instances: { number: true },
  kill_timeout: { number: true },
  shutdown_with_message: {},
  listen_timeout: { number: true },
  cron_restart: { names: ['cron'], number: true },
  merge_logs: { names: ['combine_logs'] },
  vizion: { only: "PM2's versioning metadata" },
  autostart: {},
  autorestart: {},
  stop_exit_codes: { number: true },
  watch_delay: { number: true },
  watch: {},
  ignore_watch: {},
  watch_options: {},
  min_uptime: { number: true },
  max_restarts: { number: true },
  execute_command: { only: 'PM2 internal' },
  exec_mode: {},
  force: { only: "PM2's start of a script that already runs" },
  append_env_to_name: { only: "PM2's renaming by --env" },
  post_update: { only: "commands PM2's dashboard runs after a pull" },
  trace: { only: 'PM2.io tracing' },
  disable_trace: { only: 'PM2.io tracing' },
  v8: { only: 'PM2.io metrics' },
  event_loop_inspector: { only: 'PM2.io metrics' },
  deep_monitoring: { only: 'PM2.io metrics' },
  increment_var: {},
  instance_var: {},
  pmx: { only: "PM2's monitoring agent; superd's agent reports metrics itself" },
  automation: { only: "PM2's monitoring agent" },
  treekill: { only: "superd always stops a worker's whole process group" },
  port: { number: true },
  username: { only: 'PM2 internal (who started the process); workers run as uid' },
  uid: { names: ['user'], number: true },
  gid: { number: true },
  windowsHide: { only: 'Windows only' },
  kill_retry_time: { number: true, only: 'superd sends SIGKILL once kill_timeout has passed' },
  write: { only: 'PM2 internal' },
  io: { only: "PM2's dashboard (PM2.io)" },
});

/**
 * PM2's top-level keys of an ecosystem file, treated as PM2_APP_KEYS' are.
 * @type {Readonly<Record<string, {only?: string}>>}
 */
export const PM2_TOP_KEYS = Object.freeze({
  apps: {},
  pm2: {},
  static: {},
  deploy: { only: 'pm2 deploy; keep your deploy tool, then `super reload <app>`' },
});

const entries = Object.entries(PM2_APP_KEYS);

/** PM2's app keys, without their other names. */
export const PM2_KEYS = Object.freeze(entries.map(([k]) => k));

/** PM2 key -> its other names, in PM2's order of precedence (see PM2_APP_KEYS). */
export const PM2_ALIASES = Object.freeze(Object.fromEntries(entries.filter(([, s]) => s.names).map(([k, s]) => [k, s.names])));

/** PM2 keys whose schema type includes number. */
export const PM2_NUMBER_KEYS = Object.freeze(new Set(entries.filter(([, s]) => s.number).map(([k]) => k)));

/** Every name of a PM2 key (the key and its other names) -> superd's name for the key. */
export const PM2_NAME_TO_SUPERD = Object.freeze(Object.fromEntries(entries.flatMap(([k, s]) =>
  [k, ...(s.names ?? [])].map((name) => [name, s.superd ?? k]))));

/** key -> why superd ignores it, for app keys (every name of one) and top-level keys */
export const PM2_ONLY = Object.freeze({
  app: Object.freeze(Object.fromEntries(entries.filter(([, s]) => s.only).flatMap(([k, s]) => [k, ...(s.names ?? [])].map((name) => [name, s.only])))),
  top: Object.freeze(Object.fromEntries(Object.entries(PM2_TOP_KEYS).filter(([, s]) => s.only).map(([k, s]) => [k, s.only]))),
});

const SCHEMA_APP = ecosystemSchema().$defs.app.properties;

/**
 * alias -> the superd key it stands for: the other names of the keys superd honours that
 * its own schema takes too (`output` for out_file; not `exec`, PM2's CLI name, which only a
 * PM2 file may use: pm2-reading.js renames it).
 */
export const ALIASES = Object.freeze(Object.fromEntries(Object.entries(PM2_NAME_TO_SUPERD)
  .filter(([name, key]) => name !== key && !PM2_ONLY.app[name] && Object.hasOwn(SCHEMA_APP, name))));

/**
 * For one app entry: superd key -> the key the entry writes it with (itself or an alias).
 * Two names for one key (`output` and `out_file`) are a problem (in a file written for
 * superd: a PM2 file's were resolved as PM2 resolves them, pm2-reading.js).
 * @param {Record<string, unknown>} raw
 * @param {(string|number)[]} here  the entry's key path
 * @param {import('./problems.js').Problems} problems
 * @returns {Record<string, string>}
 */
export function writtenKeys(raw, here, problems) {
  /** @type {Record<string, string>} */
  const written = {};
  for (const key of Object.keys(raw)) {
    const canonical = ALIASES[key] ?? key;
    if (written[canonical] === undefined) written[canonical] = key;
    else problems.add([...here, key], `says the same as ${written[canonical]} (PM2's other name for ${canonical}); keep one of the two`, 'key');
  }
  return written;
}

/**
 * One warning per PM2-only key in the file.
 * @param {*} data  the parsed file
 * @param {import('./problems.js').Problems} problems  for positions
 * @returns {string[]}  `<file>[:line:col]: <key path>: PM2-only key (<why>): ignored`
 */
export function pm2OnlyWarnings(data, problems) {
  if (!data || typeof data !== 'object' || Array.isArray(data)) return [];
  const out = [];
  const warn = (segments, why) => out.push(`${problems.where(segments, 'key')}${problems.label(segments)}: PM2-only key (${why}): ignored`);
  for (const key of Object.keys(data)) if (PM2_ONLY.top[key]) warn([key], PM2_ONLY.top[key]);
  if (!Array.isArray(data.apps)) return out;
  data.apps.forEach((app, i) => {
    if (!app || typeof app !== 'object') return;
    for (const key of Object.keys(app)) if (PM2_ONLY.app[key]) warn(['apps', i, key], PM2_ONLY.app[key]);
  });
  return out;
}
