// The control protocol between `super` (or any client) and the daemon, in one place.
//
// Transport: a websocket (ws) on the unix socket $SUPER_HOME/super.sock, and on the TCP
// listener of control.listen when one is configured (off by default); one JSON object per
// text frame, at most MAX_FRAME bytes (larger frames close the connection with code 1009).
// TCP only: the HTTP upgrade request must carry `Authorization: Bearer <token>` (the token
// of $SUPER_HOME/token), and an `Origin` header, if any, must be one of control.origins;
// otherwise it is answered 401 / 403 (429 after repeated failures) before any websocket
// frame (lib/ipc/remote-listener.js). Ops in LOCAL_ONLY_OPS are refused over TCP with
// E_LOCAL_ONLY.
//
//   daemon -> client, on connect:  {"hello": {"protocol": 1, "version": "0.1.0", "pid": 123}}
//   client -> daemon, request:     {"id": 7, "op": "ls", "args": {}}
//   daemon -> client, reply:       {"id": 7, "ok": true, "data": {...}}
//                                  {"id": 7, "ok": false, "error": {"code": "E_APP_NOT_FOUND", "message": "..."}}
//   daemon -> client, progress:    {"id": 7, "progress": {...}}          (before the reply, for long ops)
//   daemon -> client, event:       {"event": "worker", "data": {...}}   (only after "subscribe")
//
// A frame that is not JSON, not an object, lacks a valid id/op, or has arguments of the
// wrong type gets an error reply (id null when the id itself is unusable); nothing a
// client sends reaches an app it did not name. Errors carry the stable codes of
// lib/errors.js.
//
// Ops (args -> data):
//   ping        {}                                   -> {pong: true, pid, uptime_ms}
//   version     {}                                   -> {version, protocol, node}
//   start       {file, env?, only?, clientEnv?, watch?}
//                                                    -> {started: [name], running: [name], changed: [{name, keys}], warnings: [string]}
//               watch: true turns watch mode on for the file's apps (their cwd if they list no paths)
//               env (with apps of the file already running): the apps whose config it changes
//               are reloaded from the file with it (progress frames as reload's), adding {reloaded: [outcome]}
//               then: 'reload' | 'restart' (PM2's startOrReload / startOrRestart): every app of the file
//               that was running is reloaded (adding {reloaded}) or restarted (adding {restarted: [name]})
//               with the file's config and env, and its reloads re-read this file from then on
//   start-script {script, cwd, args?, name?, instances?, env?, clientEnv?, watch?, keys?}
//                                                    -> as start      an app without an ecosystem file
//               (`super start app.js -i 2`); validated by lib/config like a file's entry (E_CONFIG);
//               keys: more app keys (PM2's start flags); fork mode unless instances or keys ask for more
//   start-apps  {target}                             -> as start      starts the stopped apps named
//   warm-reader {}                                   -> {}   a file is sent next (`super start <file>`): the
//               thread that reads ecosystem files starts now, while the CLI checks the file
//   stop        {target}                             -> {apps: [name]}
//               target (stop, restart, reload, delete, start-apps, signal, reset) = an app name, an
//               id (as ls shows it), a namespace, "all", an ecosystem file's absolute path (the apps
//               started from it), or a list of those (at most 100)
//   restart     {target, updateEnv?}                 -> {apps: [name]}   updateEnv: as reload's, kept from then on
//   reload      {target, keepConfig?, updateEnv?}    -> {apps: [{app, ok, replaced, kept, ready_ms, total_ms, changed, failed?}]}
//               progress frames: {app, step: begin|ready|scaled|done, ...}; done carries the app's outcome
//               updateEnv: the caller's environment; the replacements get it under the app's env
//   delete      {target}                             -> {apps: [name]}
//   signal      {target, signal, slot?}              -> {signal, sent: [{app, slot, pid}]}
//   reset       {target}                             -> {apps: [name]}      restart counters back to 0
//   pid         {target, slot?}                      -> {workers: [{app, slot, pid}]}   `super pid`: running workers only
//   env         {app, slot?}                         -> {app, slot, pid, from, env}  the worker's
//               environment (from: "process" when read from the running process), secrets masked
//   scale       {app, count}                         -> {app, from, to}      count = "N" | "+N" | "-N"
//   ls          {history?}                           -> {apps: [AppStatus]}  each with its id; history: true adds each
//                                                       worker's sparkline points (metrics.history)
//   describe    {app}                                -> {app: AppStatus & {config, scheduling, connections?, daemon_cpus, source}}
//               source: {file, env?} or, for a file-less app, {command: {script, args, name, instances, env, cwd}};
//               connections: {path: round-robin|os|reuseport, why} for a cluster app
//   kill        {}                                   -> {stopping: true}    the daemon exits after replying
//   subscribe   {topics: ["worker", "metrics", "log"], lines?} -> {topics, files?}  events of those topics follow;
//               with "log" and lines: the last lines of each app's files first (files as `logs` answers)
//   unsubscribe {}                                   -> {}
//   save        {force?}                             -> {file, apps: [name], skipped: [name], replaced}
//               writes $SUPER_HOME/dump.json; refuses (E_DUMP) to replace a dump that has
//               apps with an empty list unless force
//   watch       {app, on}                            -> {app, watch: [path]}   watch mode on/off for an app
//   resurrect   {}                                   -> like start, plus {file}; E_DUMP if the dump is missing or corrupt
//   stats       {reset?, gc?}                        -> {pid, cpu_user_ms, cpu_system_ms, rss, heap_used,
//                                                        event_loop_delay_ms: {window_ms, p50, p99, max}}
//                                                       the daemon's own health; reset starts a new window;
//                                                       gc: a full GC first (a daemon run with --expose-gc only)
//   logs        {target?, lines?, stream?, since?, follow?}
//                                                    -> {files: [{app, slot, stream, path, lines: [string], earlier?, started?}], following}
//               target = app name or "all" (default); stream = "out" | "err"; lines default 20;
//               since = epoch ms (needs dated lines); follow: "log" events follow on this connection;
//               earlier: how many of a stderr file's lines, from the first, were written before the
//               app's current workers started (at `started`, epoch ms), e.g. by a failed earlier start
//   profile     {app, slot?, duration, out?, force?} -> {files: [{app, slot, pid, path, bytes}], failed: [{app, slot, code, message}]}
//               a CPU profile of `duration` ms (100 ms to 5 min) of each worker of app (one with slot),
//               written by the worker to $SUPER_HOME/profiles/ (out: an absolute path instead, not over TCP;
//               E_USAGE if it, or the flame graph's <name>.html beside it, exists, unless force)
//   heap        {app, slot?, out?, force?}           -> as profile, files with heap_used; slot may be left out
//               for an app of one worker. E_LOW_MEMORY when the host cannot hold about the heap again
//   diagnostic-file {name}                           -> {name, bytes}      progress frames {chunk: base64} carry
//               the file $SUPER_HOME/profiles/<name> (how a client over TCP gets its profile)
//   token       {rotate?}                            -> {token}      the TCP listener's token (`super token`); rotate: a new one
//   reload-logs {}                                   -> {apps, files}       reopen every log file (after logrotate)
//   flush       {target?}                            -> {apps, files}       empty the logs, remove rotated files
//   capacity-copy {app, port}                        -> {app, copy, port, port_var, exec_mode, listen_timeout, failed, warnings}
//               starts `<app>~capacity` (super capacity): the app's config, one instance, its
//               PORT (or increment_var) = port; deleted when this connection closes.
//               E_CAPACITY_NO_PORT when the app has no port variable to replace
//   deploy-state {set?: {id, version, previous?, state, step?, reason?}} -> {deploy: {id, version, previous,
//               state, step, reason, at} | null}   what `super deploy` recorded on this daemon (set: records it
//               first); state one of rolling, done, failed, reverting, reverted. `ls` and the "metrics"
//               event carry it as `deploy` while one is recorded, and topic "deploy" pushes each record as it is set
//
// Events (topic "worker"): {app, slot, pid, state, prev, code?, signal?, restarts, reason?}
// with state one of lib/master/states.js WORKER_STATES.
// Events (topic "reload"): {app, slot, step: forked|ready, pid, oldPid, ready_ms?, reason}
// per replaced slot (reloads, max_memory_restart), and {app, step: done, ok, ready_ms,
// total_ms, failed?} when an app's reload ends.
// Events (topic "metrics"): the data of `ls` (every app and worker with its metrics), once
// per metrics.interval (default 1 s), sent only while someone is subscribed.
// Events (topic "deploy"): the record of deploy-state {id, version, previous, state, step, reason, at},
// each time `super deploy` sets one (the dashboard shows every step, not only sampled ones).
// Events (topic "watch"): {app, state: "ready", count} once a watched tree is scanned;
// {app, state: "reload", files, count} when a burst of changes starts a reload;
// {app, state: "reloaded", failed}; {app, state: "error", error}.
// Events "log" (after logs {follow: true}, or subscribe to "log" for every app): {app, slot, stream, text} with text = whole lines,
// or {app, slot, stream, skipped: N} when N lines were not sent because the client read too
// slowly (the daemon never queues more than about 1 MiB per connection). slot is null for a
// file all slots share.

import { MIN_PROFILE_MS, MAX_PROFILE_MS } from '../config/profile-limits.js';

export const PROTOCOL = 1;
export const MAX_FRAME = 1024 * 1024;
// Workers a file-less start may ask for (as `scale`'s limit).
export const MAX_INSTANCES = 1024;
// The states `super deploy` records on a host (op deploy-state).
export const DEPLOY_STATES = Object.freeze(['rolling', 'done', 'failed', 'reverting', 'reverted']);
export const TOPICS = Object.freeze(['worker', 'reload', 'metrics', 'watch', 'log', 'deploy']);
// `start` names a file on the client's machine and carries the client's environment into
// the apps: meaningful only from the daemon's own host.
// `upgrade` names files on the daemon's host (--daemon-path, --config); `capacity-copy`
// starts a copy that the client loads over the daemon's loopback.
export const LOCAL_ONLY_OPS = Object.freeze(['start', 'start-script', 'upgrade', 'capacity-copy', 'warm-reader', 'token']);

const str = (v) => typeof v === 'string' && v.length > 0 && v.length <= 4096;
const optStr = (v) => v === undefined || str(v);
const strList = (v) => Array.isArray(v) && v.length <= 1000 && v.every(str);
const plainObj = (v) => v !== null && typeof v === 'object' && !Array.isArray(v);
const envMap = (v) => v === undefined || (plainObj(v) && Object.values(v).every((x) => typeof x === 'string'));
// App keys from PM2's start flags: scalars or short lists; lib/config checks each as a file's key.
const keyValue = (x) => (typeof x === 'string' && x.length <= 4096) || typeof x === 'boolean' || Number.isFinite(x);
const appKeys = (v) => plainObj(v) && Object.keys(v).length <= 64 && Object.entries(v).every(([k, x]) => /^[a-z_]{1,40}$/.test(k) && (keyValue(x) || (Array.isArray(x) && x.length <= 100 && x.every(keyValue))));
const targetSpec = [(v) => str(v) || (strList(v) && v.length >= 1 && v.length <= 100), true, 'an app name, id or namespace, "all", or a list of them'];
const absPath = (v) => str(v) && v.startsWith('/');
const slotIndex = [(v) => Number.isSafeInteger(v) && v >= 0 && v < 1024, false, 'a slot number from 0 to 1023'];
const shortStr = (v) => typeof v === 'string' && v.length > 0 && v.length <= 128;
const deployRecord = (v) => plainObj(v) && Object.keys(v).every((k) => ['id', 'version', 'previous', 'state', 'step', 'reason'].includes(k))
  && shortStr(v.id) && shortStr(v.version) && (v.previous === undefined || shortStr(v.previous)) && DEPLOY_STATES.includes(v.state)
  && (v.step === undefined || shortStr(v.step)) && (v.reason === undefined || (typeof v.reason === 'string' && v.reason.length <= 1024));
const optBool = [(v) => v === undefined || typeof v === 'boolean', false, 'true or false'];

/** op -> {args: {name: [check, required, what it must be]}} */
export const OPS = Object.freeze({
  ping: {},
  version: {},
  start: {
    file: [str, true, 'an absolute path to an ecosystem file'],
    env: [optStr, false, 'an environment name'],
    only: [(v) => v === undefined || strList(v), false, 'a list of app names'],
    clientEnv: [envMap, false, 'an object of string values'],
    watch: [(v) => v === undefined || typeof v === 'boolean', false, 'true or false'],
    cwd: [(v) => v === undefined || absPath(v), false, 'an absolute directory (where `super start` runs)'],
    then: [(v) => v === undefined || v === 'reload' || v === 'restart', false, '"reload" or "restart"'],
  },
  'start-script': {
    script: [str, true, 'a script path or a command name'],
    cwd: [(v) => str(v) && v.startsWith('/'), true, 'an absolute directory'],
    args: [(v) => Array.isArray(v) && v.length <= 1000 && v.every((x) => typeof x === 'string' && x.length <= 4096), false, 'a list of arguments'],
    name: [str, false, 'an app name'],
    instances: [(v) => typeof v === 'string' && /^(max|-?\d{1,4})$/.test(v) && Math.abs(Number(v)) <= MAX_INSTANCES, false, `N (up to ${MAX_INSTANCES}), "max" or -N`],
    env: [(v) => envMap(v) && Object.keys(v).length <= 1000, false, 'an object of string values'],
    clientEnv: [envMap, false, 'an object of string values'],
    watch: [(v) => typeof v === 'boolean', false, 'true or false'],
    keys: [appKeys, false, 'an object of app keys (max_memory_restart, autorestart, ...) with scalar or list values'],
  },
  'start-apps': { target: targetSpec },
  'warm-reader': {},
  stop: { target: targetSpec },
  restart: {
    target: targetSpec,
    updateEnv: [(v) => plainObj(v) && envMap(v), false, 'an object of string values'],
  },
  reload: {
    target: targetSpec,
    keepConfig: [(v) => v === undefined || typeof v === 'boolean', false, 'true or false'],
    updateEnv: [(v) => plainObj(v) && envMap(v), false, 'an object of string values'],
  },
  delete: { target: targetSpec },
  signal: { target: targetSpec, signal: [(v) => typeof v === 'string' && /^[A-Za-z0-9]{1,16}$/.test(v), true, 'a signal name like SIGUSR2'], slot: slotIndex },
  reset: { target: targetSpec },
  pid: { target: targetSpec, slot: slotIndex },
  env: { app: [str, true, 'an app name or id'], slot: slotIndex },
  scale: {
    app: [str, true, 'an app name'],
    count: [(v) => typeof v === 'string' && /^[+-]?\d{1,9}$/.test(v), true, 'a count like "4", "+2" or "-1"'],
  },
  ls: { history: [(v) => typeof v === 'boolean', false, 'true or false'] },
  describe: { app: [str, true, 'an app name'] },
  kill: {},
  token: { rotate: [(v) => typeof v === 'boolean', false, 'true or false'] },
  subscribe: {
    topics: [(v) => strList(v) && v.every((t) => TOPICS.includes(t)), true, `a list of topics from: ${TOPICS.join(', ')}`],
    lines: [(v) => Number.isSafeInteger(v) && v >= 0 && v <= 1000, false, 'an integer from 0 to 1000'],
  },
  unsubscribe: {},
  save: { force: [(v) => v === undefined || typeof v === 'boolean', false, 'true or false'] },
  resurrect: {},
  watch: { app: [str, true, 'an app name'], on: [(v) => typeof v === 'boolean', true, 'true or false'] },
  stats: { reset: [(v) => typeof v === 'boolean', false, 'true or false'], gc: [(v) => typeof v === 'boolean', false, 'true or false'] },
  logs: {
    target: [optStr, false, 'an app name or "all"'],
    lines: [(v) => Number.isSafeInteger(v) && v >= 0 && v <= 100000, false, 'an integer from 0 to 100000'],
    stream: [(v) => v === 'out' || v === 'err', false, '"out" or "err"'],
    since: [(v) => Number.isSafeInteger(v) && v >= 0, false, 'a time in epoch milliseconds'],
    follow: [(v) => typeof v === 'boolean', false, 'true or false'],
  },
  profile: {
    app: [str, true, 'an app name or id'],
    slot: slotIndex,
    duration: [(v) => Number.isSafeInteger(v) && v >= MIN_PROFILE_MS && v <= MAX_PROFILE_MS, true, `a duration in ms from ${MIN_PROFILE_MS} to ${MAX_PROFILE_MS}`],
    out: [absPath, false, 'an absolute file path'],
    force: optBool,
  },
  heap: { app: [str, true, 'an app name or id'], slot: slotIndex, out: [absPath, false, 'an absolute file path'], force: optBool },
  'diagnostic-file': { name: [str, true, 'the name of a file of $SUPER_HOME/profiles'] },
  'reload-logs': {},
  flush: { target: [optStr, false, 'an app name or "all"'] },
  upgrade: {
    daemonPath: [(v) => str(v) && v.startsWith('/'), false, 'an absolute directory'],
    config: [(v) => str(v) && v.startsWith('/'), false, 'an absolute path to an ecosystem file'],
  },
  'deploy-state': { set: [deployRecord, false, 'a record {id, version, previous?, state, step?, reason?} (strings up to 128 characters, reason 1024)'] },
  'capacity-copy': {
    app: [str, true, 'an app name or id'],
    port: [(v) => Number.isSafeInteger(v) && v >= 1024 && v <= 65535, true, 'a TCP port from 1024 to 65535'],
  },
});

/**
 * Checks one decoded frame. Returns {id, op, args} or {id, error: {code, message}}.
 * Pure: no I/O, so it is unit-tested with garbage directly.
 */
export function parseRequest(text) {
  let msg;
  try {
    msg = JSON.parse(text);
  } catch {
    return { id: null, error: { code: 'E_BAD_REQUEST', message: 'frame is not valid JSON' } };
  }
  if (!plainObj(msg)) return { id: null, error: { code: 'E_BAD_REQUEST', message: 'a request must be a JSON object {id, op, args}' } };
  const id = Number.isSafeInteger(msg.id) || (typeof msg.id === 'string' && msg.id.length <= 64) ? msg.id : null;
  if (id === null) return { id: null, error: { code: 'E_BAD_REQUEST', message: 'a request needs an "id" (integer or short string)' } };
  if (typeof msg.op !== 'string') return { id, error: { code: 'E_BAD_REQUEST', message: 'a request needs an "op" string' } };
  if (!Object.hasOwn(OPS, msg.op)) return { id, error: { code: 'E_UNKNOWN_OP', message: `unknown op "${msg.op.slice(0, 64)}"; known ops: ${Object.keys(OPS).join(', ')}` } };
  const args = msg.args === undefined ? {} : msg.args;
  if (!plainObj(args)) return { id, error: { code: 'E_BAD_REQUEST', message: `${msg.op}: "args" must be an object` } };
  const spec = OPS[msg.op];
  for (const key of Object.keys(args)) {
    if (!Object.hasOwn(spec, key)) return { id, error: { code: 'E_BAD_REQUEST', message: `${msg.op}: unknown argument "${key.slice(0, 64)}"` } };
  }
  for (const [key, [check, required, what]] of Object.entries(spec)) {
    if (args[key] === undefined) {
      if (required) return { id, error: { code: 'E_BAD_REQUEST', message: `${msg.op}: argument "${key}" is required (${what})` } };
    } else if (!check(args[key])) {
      return { id, error: { code: 'E_BAD_REQUEST', message: `${msg.op}: argument "${key}" must be ${what}` } };
    }
  }
  return { id, op: msg.op, args };
}
