// One app entry of the ecosystem file -> the normalized App the daemon consumes,
// plus the checks a schema cannot make (files exist, instances fit the CPUs,
// mode and interpreter agree). Values the schema already refused are skipped
// (problems.isBad), so each mistake is reported once; the result only matters
// when the whole file has no problem.

import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { checkAffinity } from './check-affinity.js';
import { didYouMean } from './did-you-mean.js';
import { resolveInstances } from './instances.js';
import { autoscaleSettings } from './autoscale.js';
import { instancesProblem } from './work-limits.js';
import { writtenKeys } from './pm2-keys.js';
import { checkCron } from './cron-check.js';
import { checkLogKeys } from './log-settings.js';
import { resolveUser } from './run-as.js';
import { cannotAppend, cannotEnter } from './run-as-paths.js';
import { defaultInterpreter, resolveScript } from './resolve-script.js';
import { shellSplit } from './shell-split.js';
import { filterEnvSetting } from './filter-env.js';
import { watchOptions } from './watch-options.js';
import { scriptEntry } from './script-entry.js';
import { parseDuration, parseSize, tooLongForTimer } from './units.js';
import { MIN_PROFILE_MS, MAX_PROFILE_MS } from './profile-limits.js';

const SIGNALS = Object.keys(os.constants.signals);

/**
 * @typedef {object} App
 * @property {string} name
 * @property {string} script  absolute path
 * @property {string[]} args
 * @property {string} cwd  absolute path
 * @property {number} instances  resolved, >= 1
 * @property {number|'max'|{min: unknown, max: unknown}} instances_spec  as written (default 1)
 * @property {import('./autoscale.js').AutoscaleSettings|null} autoscale  with `instances: { min, max }`; instances is then the count to start with (min)
 * @property {'cluster'|'fork'} exec_mode
 * @property {string} interpreter  `node`, `none`, or the absolute path of another executable (fork mode)
 * @property {string|null} node_path  another Node than the daemon's (`interpreter: /opt/node18/bin/node`)
 * @property {string[]} node_args  the interpreter's own options (with --enable-source-maps for source_map_support)
 * @property {boolean} source_map_support
 * @property {Record<string,string>} env  env merged with env_<name> for `--env <name>` (and PORT from `port`)
 * @property {import('./filter-env.js').FilterEnv} filter_env  variables of the caller's environment the workers do not get
 * @property {string} instance_var
 * @property {string|null} increment_var  variable each instance gets incremented by its instance number
 * @property {boolean} autorestart
 * @property {boolean} autostart  false: registered by `start <file>`, not started
 * @property {string|null} cron_restart  cron expression of the scheduled rolling reloads
 * @property {string} namespace
 * @property {number|null} uid  run the workers as this user (daemon as root)
 * @property {boolean} allow_privileged_ports  with uid: the workers may listen on ports below 1024
 * @property {boolean} share_port  its workers may listen on an address another app's workers
 *   hold, when that app says share_port too (lib/master/process/port-owners.js)
 * @property {number|null} gid
 * @property {number[]} stop_exit_codes
 * @property {number} min_uptime  ms
 * @property {number} max_restarts
 * @property {number} restart_delay  ms
 * @property {number} exp_backoff_restart_delay  ms, 0 = off
 * @property {boolean} restart_delay_set  whether the file sets restart_delay or
 *   exp_backoff_restart_delay; when it sets neither, crash loops get the built-in backoff
 * @property {number} kill_timeout  ms
 * @property {string} kill_signal
 * @property {number} listen_timeout  ms
 * @property {boolean} wait_ready
 * @property {'listen'|'ready'|'spawn'} ready_on
 * @property {'listen'|null} reload_ready_on  a reload's replacement is ready by this instead, when
 *   the slot's worker listened (a PM2 file's cluster app: online at spawn, zero-downtime reloads)
 * @property {string[]} watch  absolute paths; [] = off
 * @property {string[]} ignore_watch
 * @property {number} watch_delay  ms
 * @property {import('./watch-options.js').WatchOptions|null} watch_options  chokidar's options the file sets (ms), or null
 * @property {number|null} max_memory_restart  bytes
 * @property {number|null} max_requests  HTTP requests a worker answers before it is replaced (ready-first)
 * @property {number} max_requests_jitter  each worker's limit is raised by a random 0 to this many
 * @property {string|null} out_file  absolute path, null = default
 * @property {string|null} error_file  absolute path, null = default
 * @property {boolean} merge_logs
 * @property {string|null} log_date_format
 * @property {'raw'|'json'|'pm2-json'} log_type
 * @property {boolean} disable_logs
 * @property {boolean} time
 * @property {number|null} log_max_size  bytes
 * @property {number|null} log_retain
 * @property {string|null} log_rotate  daily, hourly or a cron expression
 * @property {number|null} log_retain_days
 * @property {string|number|number[]|Record<string,unknown>|null} cpu_affinity  as written (checked:
 *   every CPU is one the daemon may use); lib/master/settings/affinity.js turns it into each slot's CPUs
 * @property {number} reload_parallel
 * @property {number} probation  ms
 * @property {'rolling'|'surge'} reload_strategy
 * @property {number|string} max_surge  a count, or a percentage of the instances as 'N%'
 * @property {number|string} max_unavailable  a count, or a percentage as 'N%'
 * @property {number|null} retire_interval  ms; null: derived from the batch size
 * @property {number} drain_timeout  ms
 * @property {number} shutdown_delay  ms of lame duck (not ready, still serving) before a retirement's drain
 * @property {boolean} shutdown_with_message
 * @property {number|null} metrics_interval  ms
 * @property {number|null} unresponsive_timeout  ms
 * @property {{loop_delay: number, duration: number, keep: number, cooldown: number}|null} profile_on_stall  ms
 * @property {{max_loop_delay: number|null, max_inflight: number|null, max_queue_wait: number|null, status: number, retry_after: number, request_timeout: number}|null} overload  ms
 * @property {{by: 'ip'|'sid'|'cookie', cookie: string|null}|null} sticky  which connections go to one worker (docs/realtime.md)
 * @property {{ file: string, line: number|null }} source  where the entry starts (no line: a JS/TS file's)
 */

/**
 * @param {*} raw  the app entry as parsed
 * @param {number} index  its place in `apps`
 * @param {object} ctx
 * @param {import('./problems.js').Problems} ctx.problems
 * @param {string} ctx.file  absolute path of the ecosystem file
 * @param {string} ctx.baseDir  directory relative cwds resolve against
 * @param {number} ctx.cpus
 * @param {number[]} ctx.allowedCpus  the CPUs the daemon may use
 * @param {string|null} [ctx.noPinning]  why CPU pinning cannot work here (default: detected)
 * @param {string} [ctx.envName]  `--env <name>`
 * @param {boolean} [ctx.pm2]  a PM2 file (pm2-format.js): PM2's defaults for exec_mode, merge_logs and readiness
 * @param {boolean} [ctx.mergeLogsDefault]  merge_logs when the file does not say (`super run`: false)
 * @param {number} [ctx.shutdownDelayDefault]  shutdown_delay when the file does not say, ms
 * @param {string[]} [ctx.warnings]  where keys accepted but ignored are noted
 * @param {boolean} [ctx.isRoot]  whether the daemon runs as root (uid/gid need it; default: this process)
 * @param {{instances: number, apps: number}} [ctx.limits]  lib/config/work-limits.js workLimits() (default: read there)
 * @returns {App|null} null when the entry is not a mapping
 */
export function normalizeApp(raw, index, ctx) {
  const { problems } = ctx;
  const here = ['apps', index];
  if (problems.isBad(here) || !raw || typeof raw !== 'object' || Array.isArray(raw)) return null;
  // A key may be written with PM2's other name for it (`output` for out_file): problems name it as written.
  const written = writtenKeys(raw, here, problems);
  const at = (key) => [...here, written[key] ?? key];
  /** The value of `key`, or undefined when absent or already refused. */
  const get = (key) => (problems.isBad(at(key)) ? undefined : raw[written[key] ?? key]);
  const report = (key, message) => problems.add(at(key), message);
  const warn = (key, message) => ctx.warnings?.push(`${problems.where(at(key), 'key')}${problems.label(at(key))}: ${message}`);
  const ms = (key, fallback) => convert(key, parseDuration, fallback, 'a duration like 500ms, 5s, 2m or 1h');
  const bytes = (key) => convert(key, parseSize, null, 'a size like 512K, 300M or 1G');
  function convert(key, parse, fallback, expected) {
    const v = get(key);
    if (v === undefined || v === null) return fallback;
    const out = parse(v);
    const tooLong = out !== undefined && parse === parseDuration ? tooLongForTimer(v, out) : null;
    if (out === undefined) report(key, `must be ${expected} (got ${v}); use a finite value`);
    else if (tooLong) report(key, tooLong);
    return out ?? fallback;
  }

  const cwd = resolveCwd(get('cwd'), ctx.baseDir, (m) => report('cwd', m));
  const env = mergeEnv(get('env'), ctx.envName && get(`env_${ctx.envName}`));
  checkEnvBytes(raw, here, problems);
  if (typeof get('port') === 'number' && env.PORT === undefined) env.PORT = String(get('port'));
  const script = typeof get('script') === 'string' ? get('script') : undefined;
  const searchPath = env.PATH ?? process.env.PATH;
  const writtenMode = { cluster_mode: 'cluster', fork_mode: 'fork' }[get('exec_mode')] ?? get('exec_mode');
  const runAs = resolveUser({ uid: get('uid'), gid: get('gid') }, ctx.isRoot ?? process.getuid?.() === 0, (key, m) => report(key, m));
  // The files of an app run as another user are read with that user's rights (lib/safe-read.js).
  const as = runAs.uid !== null && runAs.uid !== process.getuid?.() ? { uid: runAs.uid, gid: runAs.gid ?? runAs.uid } : null;
  // The daemon changes into cwd before it drops to the user: the user must be able to itself.
  const cwdRefused = as && cwd && cannotEnter(cwd, as);
  if (cwdRefused) report('cwd', `${cwdRefused}; an app run as another user gets only a cwd that user may enter: give one, or fix the modes`);
  const entry = script === undefined ? null : scriptEntry({
    script, args: argList(get('args'), (m) => report('args', m)), execMode: writtenMode, instances: get('instances'),
    cwd: cwd ?? ctx.baseDir, report: (m) => report('script', m), warn: (m) => warn('script', m), as,
  });
  Object.assign(env, entry?.env);
  // No interpreter written: the script decides (resolveScript 'auto': a Node program or not).
  const interpreterSpec = entry?.interpreter ?? get('interpreter');
  let { interpreter, node_path: nodePath } = interpreterSpec === undefined ? { interpreter: undefined, node_path: null }
    : resolveInterpreter(interpreterSpec, cwd ?? ctx.baseDir, searchPath, (m) => report(entry?.interpreter ? 'script' : 'interpreter', m));
  let scriptPath = entry && path.resolve(cwd ?? ctx.baseDir, entry.script);
  if (entry && cwd && !problems.isBad(at('script'))) {
    const found = resolveScript(entry.script, cwd, interpreterSpec === undefined ? 'auto' : interpreter === 'none' ? 'none' : 'node', searchPath, as);
    if (found.error !== undefined) report('script', found.error);
    else scriptPath = found.path;
    interpreter ??= found.interpreter;
  }
  interpreter ??= script ? defaultInterpreter(script) : 'node';

  const execMode = entry?.execMode ?? writtenMode ?? entry?.defaultMode ?? defaultMode(interpreter, ctx.pm2 ? get('instances') : 1);
  if (execMode === 'cluster' && interpreter !== 'node' && !problems.isBad(at('interpreter'))) {
    const why = interpreter !== 'none' ? `interpreter is ${interpreterSpec}` : interpreterSpec === 'none' ? 'interpreter is none' : `${script} is not a Node program`;
    report('exec_mode', `cluster mode needs a Node script (${why}); use exec_mode: fork`);
  }
  const incrementVar = get('increment_var') ?? null;
  if (incrementVar && env[incrementVar] !== undefined && !/^-?\d+$/.test(env[incrementVar])) {
    report('increment_var', `${incrementVar} is "${env[incrementVar]}" in env, not a whole number to increment; set env.${incrementVar} to a number such as 3000`);
  }
  const filterEnv = filterEnvSetting(get('filter_env'));
  if (filterEnv === true && ctx.pm2) warn('filter_env', 'true: the workers get none of the variables of the shell that runs `super start` (the intent of PM2\'s key; PM2 7 itself passes them all), only the app\'s env and the daemon\'s own environment');
  const cron = get('cron_restart') ?? null;
  if (cron !== null) {
    const bad = checkCron(cron);
    if (bad) report('cron_restart', `not a cron expression (${bad}); write 5 fields (minute hour day month weekday) or 6 with seconds first, e.g. "0 3 * * *"`);
  }
  checkLogKeys(get, report);
  const sourceMaps = interpreter === 'node' && get('source_map_support') === true && get('disable_source_map_support') !== true;
  let nodeArgs = [...(entry?.nodeArgs ?? []), ...argList(get('node_args'), (m) => report('node_args', m))];
  if (interpreter === 'none' && nodeArgs.length && !problems.isBad(at('node_args'))) {
    // PM2 gives them to the Node that runs npm (`node <node_args> npm start`), not to the
    // app npm starts; superd runs npm (any program without an interpreter) as it is.
    warn('node_args', `ignored: ${path.basename(entry?.script ?? script ?? '')} runs as it is, without an interpreter to take them (PM2 gives them to the Node that runs it, not to what it starts); for the app's Node, set NODE_OPTIONS in env`);
    nodeArgs = [];
  }
  if (sourceMaps && !nodeArgs.includes('--enable-source-maps')) nodeArgs.push('--enable-source-maps');

  const spec = get('instances') ?? 1;
  // `instances: { min, max }`: the app starts min workers and autoscales (autoscale.js).
  const autoscale = problems.isBad(at('instances')) ? null : autoscaleSettings({
    instances: spec, autoscale: get('autoscale'), cpus: ctx.cpus, interpreter, limits: ctx.limits,
    report: ([key, ...sub], m) => {
      const where = [...at(key), ...sub];
      if (!problems.isBad(where)) problems.add(where, m); // the schema's word on it stands
    },
  });
  let instances = autoscale?.min ?? 1;
  if (!problems.isBad(at('instances')) && !autoscale && typeof spec !== 'object') {
    try {
      instances = resolveInstances(spec, ctx.cpus);
    } catch (err) {
      const range = ctx.cpus > 2 ? `-1 to -${ctx.cpus - 1}, ` : ctx.cpus === 2 ? '-1, ' : '';
      report('instances', `${err.message}; use ${range}a positive number, or max`);
    }
    const tooMany = instancesProblem(instances, ctx.limits);
    if (tooMany) report('instances', tooMany);
  }

  const killSignal = get('kill_signal') ?? 'SIGINT';
  if (!SIGNALS.includes(killSignal)) report('kill_signal', `unknown signal "${killSignal}"; ${signalHint(killSignal)}`);

  const waitReady = get('wait_ready') ?? false;
  // A PM2 file's apps are online once they run (PM2's readiness), unless wait_ready.
  const readyOn = get('ready_on') ?? (waitReady ? 'ready' : execMode === 'fork' || ctx.pm2 ? 'spawn' : 'listen');
  if (waitReady && readyOn !== 'ready') {
    report('ready_on', `${readyOn} contradicts wait_ready: true (which means ready_on: ready); remove one of them`);
  }

  checkAffinity(get('cpu_affinity'), { allowed: ctx.allowedCpus, noPinning: ctx.noPinning }, (segs, m) => problems.add([...at('cpu_affinity'), ...segs], m));

  // A fork-mode app's reload keeps PM2's files working without PM2's restart: a Node server
  // gets its listening socket from the daemon (the old and the new process accept side by
  // side), any other server that holds its port stops first (lib/master/apps/app.js downFirst).
  const surge = reloadSurge(get, report);

  const maxRequests = get('max_requests') ?? null;
  if (maxRequests !== null) {
    // The agent counts the requests and reports them: a Node app whose agent reports.
    if (interpreter !== 'node') report('max_requests', `needs superd's agent to count the requests: a Node app (interpreter is ${interpreter === 'none' ? 'none' : interpreterSpec ?? interpreter})`);
    else if (get('metrics_interval') !== undefined && parseDuration(get('metrics_interval')) === 0) report('max_requests', 'needs the agent\'s reports, and metrics_interval: 0 turns them off; remove one of the two');
  } else if (get('max_requests_jitter')) report('max_requests_jitter', 'needs max_requests (e.g. max_requests: 10000)');

  const underWatchOptions = (sub) => [...at('watch_options'), sub];
  const watchOpts = watchOptions(get('watch_options'), (sub, m) => problems.add(underWatchOptions(sub), m),
    (sub, m) => ctx.warnings?.push(`${problems.where(underWatchOptions(sub), 'key')}${problems.label(underWatchOptions(sub))}: ${m}`));

  const base = cwd ?? ctx.baseDir;
  const filePath = (key) => (typeof get(key) === 'string' ? path.resolve(base, get(key)) : null);
  // PM2's combined log: superd writes both streams to it when neither has its own file.
  // PM2's combined file is a third file; `/dev/null` there (or NULL) discards only that copy.
  let combined = get('log_file') === '/dev/null' ? null : filePath('log_file');
  if (get('log_file') === true) warn('log_file', 'true (PM2\'s default combined file) is ignored; give a path');
  if (combined && (filePath('out_file') || filePath('error_file'))) {
    warn('log_file', 'ignored: out_file or error_file is given too, and superd writes each stream to one file');
    combined = null;
  }
  // The daemon opens an app's log files for its workers: a uid app's must be files its user
  // could append to by itself (its own, not /etc/cron.d/x). superd's own logs directory is exempt.
  for (const key of as ? ['out_file', 'error_file', 'log_file'] : []) {
    const file = key === 'log_file' ? combined : filePath(key);
    const why = file && as && cannotAppend(file, as, { created: get('merge_logs') === false });
    if (why) report(key, `${why}; an app run as another user writes only log files that user could: create the file as its (install -o <user> -m 640 /dev/null ${file}), or leave ${key} out to use superd's logs directory`);
  }
  return {
    name: get('name'),
    // null only when script is missing or refused: reported, and the file refused whole.
    script: /** @type {string} */ (scriptPath),
    args: entry?.args ?? argList(get('args'), (m) => report('args', m)),
    cwd,
    instances,
    instances_spec: spec,
    exec_mode: execMode,
    interpreter,
    node_path: nodePath,
    node_args: nodeArgs,
    source_map_support: sourceMaps,
    env,
    filter_env: filterEnv,
    instance_var: get('instance_var') ?? 'NODE_APP_INSTANCE',
    increment_var: incrementVar,
    autorestart: get('autorestart') ?? true,
    autostart: get('autostart') ?? true,
    cron_restart: cron,
    namespace: get('namespace') ?? 'default',
    uid: runAs.uid,
    gid: runAs.gid,
    allow_privileged_ports: get('allow_privileged_ports') ?? false,
    share_port: get('share_port') ?? false,
    stop_exit_codes: [].concat(get('stop_exit_codes') ?? []),
    min_uptime: ms('min_uptime', 1000),
    max_restarts: get('max_restarts') ?? 16,
    restart_delay: ms('restart_delay', 0),
    exp_backoff_restart_delay: ms('exp_backoff_restart_delay', 0),
    restart_delay_set: raw.restart_delay !== undefined || raw.exp_backoff_restart_delay !== undefined,
    kill_timeout: ms('kill_timeout', 1600),
    kill_signal: killSignal,
    listen_timeout: ms('listen_timeout', 8000),
    wait_ready: waitReady,
    ready_on: readyOn,
    // A PM2 file's cluster app that listens: its reload waits for the replacement's listen.
    reload_ready_on: ctx.pm2 && readyOn === 'spawn' && get('ready_on') === undefined && execMode === 'cluster' ? 'listen' : null,
    watch: watchList(get('watch'), base),
    ignore_watch: [...[].concat(get('ignore_watch') ?? []), ...watchOpts.ignored],
    watch_delay: ms('watch_delay', 1000),
    watch_options: watchOpts.options,
    max_memory_restart: bytes('max_memory_restart'),
    max_requests: maxRequests,
    max_requests_jitter: get('max_requests_jitter') ?? 0,
    out_file: filePath('out_file') ?? combined,
    error_file: filePath('error_file') ?? combined,
    // PM2 merges by default only what it runs as one process (Common.verifyConfs).
    merge_logs: get('merge_logs') ?? (ctx.pm2 ? !(writtenMode === 'cluster' || (get('instances') !== 'max' && Boolean(get('instances')))) : ctx.mergeLogsDefault ?? true),
    log_date_format: get('log_date_format') ?? null,
    log_type: get('log_type') ?? 'raw',
    disable_logs: get('disable_logs') ?? false,
    time: get('time') ?? false,
    log_max_size: bytes('log_max_size'),
    log_retain: get('log_retain') ?? null,
    log_rotate: get('log_rotate') ?? null,
    log_retain_days: get('log_retain_days') ?? null,
    cpu_affinity: get('cpu_affinity') ?? null,
    reload_parallel: get('reload_parallel') ?? 1,
    probation: ms('probation', 250),
    ...surge,
    retire_interval: ms('retire_interval', null),
    drain_timeout: ms('drain_timeout', 10000),
    shutdown_delay: ms('shutdown_delay', ctx.shutdownDelayDefault ?? 0),
    shutdown_with_message: get('shutdown_with_message') ?? false,
    metrics_interval: ms('metrics_interval', null),
    unresponsive_timeout: ms('unresponsive_timeout', null),
    profile_on_stall: stallCapture(get('profile_on_stall'), (message) => report('profile_on_stall', message)),
    autoscale,
    sticky: stickyMode(get('sticky'), execMode, (message) => report('sticky', message)),
    overload: overloadBounds(get('overload'), (sub, message) => problems.add(sub ? [...at('overload'), sub] : at('overload'), message)),
    source: { file: ctx.file, line: problems.positions?.locate(here).line ?? null },
  };
}

/**
 * The surge reload's batch keys (reload_strategy, max_surge, max_unavailable): percentages
 * within 0-100%, and at least one of max_surge / max_unavailable above 0, else no slot
 * could ever be replaced.
 */
function reloadSurge(get, report) {
  const amount = (key, fallback) => {
    const v = get(key);
    if (typeof v !== 'string') return v ?? fallback;
    const pct = Number(v.trim().slice(0, -1).trim());
    if (pct > 100) report(key, `must be a percentage from 0% to 100% (got "${v}"); e.g. ${key}: 25%`);
    return `${pct}%`;
  };
  const surge = amount('max_surge', '100%');
  const unavailable = amount('max_unavailable', 0);
  const none = (v) => v === 0 || v === '0%';
  if (none(surge) && none(unavailable)) {
    const key = get('max_surge') !== undefined ? 'max_surge' : 'max_unavailable';
    report(key, `max_surge ${surge} with max_unavailable ${unavailable} lets a reload replace no slot; give max_surge >= 1 (e.g. 25%), or max_unavailable >= 1`);
  }
  return { reload_strategy: get('reload_strategy') ?? 'rolling', max_surge: surge, max_unavailable: unavailable };
}

/**
 * A duration inside a mapping the schema checked: undefined only for one it refused (that
 * problem is reported, and the file is refused whole), so a number wherever it is used.
 * @param {unknown} v
 */
const checkedMs = (v) => /** @type {number} */ (parseDuration(v));

/**
 * profile_on_stall with its defaults, in ms; the schema checked the shape. Its duration is
 * bounded as `super profile --duration` is.
 */
function stallCapture(v, report) {
  if (!v || typeof v !== 'object') return null;
  const out = {
    loop_delay: checkedMs(v.loop_delay),
    duration: checkedMs(v.duration ?? '5s'),
    keep: v.keep ?? 10,
    cooldown: checkedMs(v.cooldown ?? '1m'),
  };
  if (out.duration < MIN_PROFILE_MS || out.duration > MAX_PROFILE_MS) report(`duration must be from ${MIN_PROFILE_MS} ms to 5m (got ${v.duration})`);
  return out;
}

/**
 * sticky in one shape, {by, cookie}; the schema checked the values. Only cluster workers
 * get their connections from the daemon: a fork-mode app listens on its own.
 */
function stickyMode(v, execMode, report) {
  if (v === undefined || v === null || v === false) return null;
  const by = v === true ? 'ip' : typeof v === 'string' ? v : v?.by;
  if (execMode !== 'cluster') report('needs exec_mode: cluster (the daemon hands connections only to cluster workers; a fork-mode app accepts its own)');
  return { by, cookie: by === 'cookie' ? (typeof v === 'object' && v.cookie) || 'io' : null };
}

/** The agent's loop-delay timer ticks every 10 ms (lib/worker/overload.cjs): a finer bound could not be seen. */
const MIN_OVERLOAD_LOOP_DELAY_MS = 10;
/** The least overload.request_timeout: the agent checks the app's connections every quarter of it, at least 100 ms apart. */
const MIN_REQUEST_TIMEOUT_MS = 100;

/**
 * overload with its defaults, in ms; the schema checked the shape. A bound is needed, and
 * a loop-delay bound the agent's timer can measure.
 */
function overloadBounds(v, report) {
  if (!v || typeof v !== 'object') return null;
  const out = {
    max_loop_delay: v.max_loop_delay === undefined ? null : checkedMs(v.max_loop_delay),
    max_inflight: v.max_inflight ?? null,
    max_queue_wait: v.max_queue_wait === undefined ? null : checkedMs(v.max_queue_wait),
    status: v.status ?? 503,
    retry_after: checkedMs(v.retry_after ?? '1s'),
    request_timeout: checkedMs(v.request_timeout ?? '30s'),
  };
  if (out.max_loop_delay === null && out.max_inflight === null && out.max_queue_wait === null) report(null, 'needs a bound: max_queue_wait (e.g. 500ms), max_inflight (e.g. 64) or max_loop_delay (e.g. 100ms)');
  if (out.max_queue_wait !== null && out.max_queue_wait < MIN_OVERLOAD_LOOP_DELAY_MS) report('max_queue_wait', `must be at least ${MIN_OVERLOAD_LOOP_DELAY_MS}ms (got ${v.max_queue_wait}): the agent times the loop with a ${MIN_OVERLOAD_LOOP_DELAY_MS} ms timer`);
  if (out.request_timeout < MIN_REQUEST_TIMEOUT_MS) report('request_timeout', `must be at least ${MIN_REQUEST_TIMEOUT_MS}ms (got ${v.request_timeout}): a client needs time to send a request`);
  if (out.max_loop_delay !== null && out.max_loop_delay < MIN_OVERLOAD_LOOP_DELAY_MS) report('max_loop_delay', `must be at least ${MIN_OVERLOAD_LOOP_DELAY_MS}ms (got ${v.max_loop_delay}): the agent measures the loop with a ${MIN_OVERLOAD_LOOP_DELAY_MS} ms timer`);
  return out;
}

/**
 * `node`, `none`, or another executable: a name on PATH or a path (relative to cwd).
 * A Node binary stays `node` (the agent is preloaded), with its path when not the daemon's own.
 */
function resolveInterpreter(spec, cwd, searchPath, report) {
  if (spec === 'node' || spec === 'none') return { interpreter: spec, node_path: null };
  const found = resolveScript(spec, cwd, 'none', searchPath);
  if (found.error !== undefined) {
    report(found.error.replace(/; chmod \+x it.*$/, '; chmod +x it, or name an installed interpreter such as python3'));
    return { interpreter: spec, node_path: null }; // reported: the result is not used
  }
  if (/^node(js)?(\.exe)?$/.test(path.basename(found.path))) {
    return { interpreter: 'node', node_path: fs.realpathSync(found.path) === fs.realpathSync(process.execPath) ? null : found.path };
  }
  return { interpreter: found.path, node_path: null };
}

/** Absolute cwd, or undefined (after reporting) when it is not an existing directory. */
function resolveCwd(cwd, baseDir, report) {
  if (cwd === undefined) return baseDir;
  if (typeof cwd !== 'string') return undefined;
  const abs = path.resolve(baseDir, cwd);
  const stat = fs.statSync(abs, { throwIfNoEntry: false });
  const where = path.isAbsolute(cwd) ? '' : ` (relative to ${baseDir})`;
  if (!stat) report(`directory not found: ${abs}; check the path${where}`);
  else if (!stat.isDirectory()) report(`not a directory: ${abs}; give the directory the app runs in`);
  else return abs;
  return undefined;
}

/** env then env_<name>, values as strings (an empty value is ""). */
function mergeEnv(env, overrides) {
  const entries = [...Object.entries(asMap(env)), ...Object.entries(asMap(overrides))];
  // fromEntries defines own properties, so a `__proto__` variable stays a plain variable.
  return Object.fromEntries(entries.map(([k, v]) => [k, v === null ? '' : String(v)]));
}

/** A NUL byte cannot be passed in an environment (spawn refuses it, and the worker crash-loops). */
function checkEnvBytes(raw, here, problems) {
  for (const key of Object.keys(raw)) {
    if (key !== 'env' && !key.startsWith('env_')) continue;
    for (const [name, value] of Object.entries(asMap(raw[key]))) {
      if (name.includes('\0') || (typeof value === 'string' && value.includes('\0'))) {
        problems.add([...here, key, name], 'holds a NUL byte, which an environment variable cannot; remove it');
      }
    }
  }
}

function asMap(v) {
  return v && typeof v === 'object' && !Array.isArray(v) ? v : {};
}

function argList(v, report) {
  if (v === undefined || v === null) return [];
  if (Array.isArray(v)) return v.map(String);
  try {
    return shellSplit(String(v));
  } catch (err) {
    report(`cannot split into arguments: ${err.message}; close the quote, or write a list`);
    return [];
  }
}

function watchList(watch, base) {
  if (watch === true) return [base];
  if (!watch) return [];
  return [].concat(watch).map((p) => path.resolve(base, p));
}

/**
 * The mode when neither the file nor the script decides: superd's own files run a Node
 * script in cluster mode; a PM2 file only when `instances` is written (Common.sink.determineExecMode).
 */
function defaultMode(interpreter, instances) {
  if (interpreter !== 'node') return 'fork';
  return instances === undefined || instances === null ? 'fork' : 'cluster';
}

function signalHint(sig) {
  const upper = String(sig).toUpperCase();
  const guess = SIGNALS.includes(upper) ? upper
    : SIGNALS.includes(`SIG${upper}`) ? `SIG${upper}`
      : didYouMean(sig, SIGNALS);
  return guess ? `did you mean "${guess}"?` : 'use a signal name like SIGINT or SIGTERM';
}
