'use strict';
// The daemon <-> agent protocol: every message the daemon and the agent preloaded in a
// worker (lib/worker/agent.cjs) say to each other over the worker's IPC channel, in one
// place. CommonJS because the agent requires it; the daemon imports it.
//
// Envelope: {cmd: name, ...fields}. Names start with "super:" and never with "NODE_":
// Node hands a message whose cmd starts with NODE_ to its own 'internalMessage' handlers
// (cluster's), not to 'message'. PM2's plain strings 'ready' (app -> daemon) and
// 'shutdown' (daemon -> fork-mode app, shutdown_with_message) are part of it too.
//
// Guards: any app can send anything on this channel (it is its own process.send), so the
// daemon checks each received message with the guard of its name before acting on it.
// A guard reads a bounded number of fields whatever the message holds (lists and maps up
// to a bound), so it costs little next to the parse Node already did; it logs nothing and
// returns the fields the daemon may use, or null to drop the message.

/** Agent -> daemon. */
const FROM_AGENT = Object.freeze({
  READY: 'super:ready', // the app called ready() (wait_ready / ready_on: ready)
  DRAINED: 'super:drained', // the drain asked by SHUTDOWN is done: {hookErrors}
  METRICS: 'super:metrics', // {data} (lib/worker/metrics.cjs): asked by REPORT, or once per interval while WATCHed
  LOG_ERROR: 'super:log-error', // a log write failed, lines are dropped: {stream, code}
  LOG_RESUMED: 'super:log-resumed', // writing works again: {stream, code, dropped}
  LOGS_REOPENED: 'super:logs-reopened', // the answer to REOPEN_LOGS
  // the answer to PROFILE / HEAP: {id, ok, bytes?, heapUsed?, error?: {code, message}}
  DIAGNOSTIC_DONE: 'super:diagnostic-done',
  STICKY_SESSION: 'super:sticky-session', // {sid}: this worker made engine.io session sid (sticky: sid / cookie, lib/worker/sticky.cjs)
  // a fork-mode server's listen(), for a socket the daemon holds (lib/worker/shared-listen.cjs):
  // {id, address, port, addressType, flags}; answered by LISTEN_HANDLE
  LISTEN: 'super:listen',
  LISTEN_CLOSED: 'super:listen-closed', // {id}: that server closed its copy of the socket
});

/**
 * Daemon -> agent (cluster workers only: a fork-mode child gets no message, see agent.cjs;
 * PROFILE, HEAP and the metrics messages excepted: a Node fork-mode child has the agent and
 * its channel too).
 */
const TO_AGENT = Object.freeze({
  SHUTDOWN: 'super:shutdown', // {drain_timeout}: drain, run the onShutdown hooks, answer DRAINED
  ADMIT: 'super:admit', // take connections although not ready (missed listen_timeout)
  REBALANCE: 'super:rebalance', // a worker was added beside this one: close each keep-alive connection once (drain.cjs)
  REOPEN_LOGS: 'super:reopen-logs', // open the log paths again (rotation, reload-logs)
  PROFILE: 'super:profile', // {id, duration, path, replace}: write a CPU profile of `duration` ms to path
  HEAP: 'super:heap', // {id, path, replace}: write a heap snapshot to path (replace: an existing file may go)
  REPORT: 'super:report', // send METRICS now: the liveness ping, `ls`, a scrape (any Node worker)
  WATCH: 'super:watch', // someone watches: send METRICS once per interval (any Node worker)
  UNWATCH: 'super:unwatch', // nobody watches: report only when asked
  STICKY_PREFIX: 'super:sticky-prefix', // {peer, data}: the first bytes (base64) of the connection from peer (address:port) the daemon hands next (sticky: sid / cookie)
  LISTEN_REFUSED: 'super:listen-refused', // {message}: why the listen() failing next was refused (lib/master/process/listen-guard.js and port-owners.js, sent by cluster-internals/fork.js)
  LISTEN_HANDLE: 'super:listen-handle', // {id, errno?}, with the listening socket as the message's handle (fork mode: shared-listen.cjs)
  // {lend, port, address}, with a SO_REUSEPORT socket of the app's port no worker's slot holds: accept from it too (lent-listen.cjs)
  LEND_LISTEN: 'super:lend-listen',
  UNLEND_LISTEN: 'super:unlend-listen', // {lend}: a worker of that socket's slot holds it again: stop accepting from it
});

/** PM2's own messages, understood as PM2 apps send and expect them. */
const PM2 = Object.freeze({ READY: 'ready', SHUTDOWN: 'shutdown' });

const fromAgent = new Set(Object.values(FROM_AGENT));
const toAgent = new Set(Object.values(TO_AGENT));

/** The message `name` with its fields, as sent on the channel. */
const envelope = (name, fields) => (fields ? { cmd: name, ...fields } : { cmd: name });

const cmdOf = (m) => (m !== null && typeof m === 'object' && typeof m.cmd === 'string' ? m.cmd : undefined);

/** The FROM_AGENT name of a message received by the daemon, or undefined (not ours: drop it). */
function agentMessageName(m) {
  if (m === PM2.READY) return FROM_AGENT.READY;
  const cmd = cmdOf(m);
  return fromAgent.has(cmd) ? cmd : undefined;
}

/** The TO_AGENT name of a message received by the agent, or undefined (the app's own). */
function daemonMessageName(m) {
  const cmd = cmdOf(m);
  return toAgent.has(cmd) ? cmd : undefined;
}

// What the daemon keeps of a message: bounds and checks.
const MAX_RESOURCE_TYPES = 32;
const MAX_RESOURCE_KEYS_READ = 4 * MAX_RESOURCE_TYPES;
const MAX_HOOK_ERRORS = 5;
const MAX_HOOK_ERROR_CHARS = 4096;
const RESOURCE_TYPE = /^[A-Za-z][A-Za-z0-9_]{0,63}$/;
// A write error is one of the system's errno names, so a worker reporting made-up codes
// cannot make the daemon log (once per code) without end. Built on first use: the agent
// never checks.
let errnoNames = null;
const isErrno = (code) => (errnoNames ??= new Set([...Object.keys(require('node:os').constants.errno), 'EIO'])).has(code);
const STREAMS = new Set(['out', 'err']);
// The codes an agent may give a failed diagnostic: anything else becomes E_DIAGNOSTICS.
const DIAGNOSTIC_CODES = new Set(['E_BUSY', 'E_LOW_MEMORY', 'E_DIAGNOSTICS', 'E_USAGE']);
const MAX_DIAGNOSTIC_ERROR_CHARS = 500;
const STICKY_SID = /^[\w-]{1,64}$/; // engine.io's ids (base64id: 20 URL-safe characters)

const num = (v) => (typeof v === 'number' && Number.isFinite(v) ? v : null);
const obj = (v) => (v !== null && typeof v === 'object' && !Array.isArray(v) ? v : null);
const EMPTY = Object.freeze({});

/**
 * A worker's metrics report reduced to the agent's shape (lib/worker/metrics.cjs): finite
 * numbers where numbers go, at most MAX_RESOURCE_TYPES resource counts, so `ls`, `monit`,
 * the health rules and the Prometheus text never see strings, arrays or a huge object
 * where the agent puts a number. A field added to the agent's report must be added here.
 * @returns {{loop, elu, ms, heap, rss, cpu_us, resources, http, overload, connections}} every field null when absent or malformed
 */
function agentReport(data) {
  const loop = obj(data.loop);
  const heap = obj(data.heap);
  const http = obj(data.http);
  const overload = obj(data.overload);
  const connections = obj(data.connections);
  return {
    // metrics-store.js merges p99 and max across reports: without both, no loop value.
    loop: loop && num(loop.p99) !== null && num(loop.max) !== null
      ? { p50: num(loop.p50), p99: loop.p99, max: loop.max, mean: num(loop.mean) }
      : null,
    elu: num(data.elu),
    ms: num(data.ms),
    heap: heap && { used: num(heap.used), total: num(heap.total) },
    rss: num(data.rss),
    cpu_us: cpuTimes(obj(data.cpu_us)),
    resources: resourceCounts(obj(data.resources)),
    http: http && { rps: num(http.rps), p99: num(http.p99), requests: num(http.requests), sum_us: num(http.sum_us), inflight: num(http.inflight) },
    overload: overload && { shedding: overload.shedding === true, shed: num(overload.shed), inflight: num(overload.inflight) },
    connections: connections && { open: num(connections.open), websockets: num(connections.websockets) },
  };
}

/** {user, system} µs, both whole and not negative, or null. */
function cpuTimes(c) {
  return c && Number.isSafeInteger(c.user) && Number.isSafeInteger(c.system) && c.user >= 0 && c.system >= 0 ? { user: c.user, system: c.system } : null;
}

function resourceCounts(r) {
  if (!r) return null;
  const out = {};
  let kept = 0;
  let read = 0;
  for (const key in r) {
    if (kept === MAX_RESOURCE_TYPES || read++ === MAX_RESOURCE_KEYS_READ) break;
    if (!Object.hasOwn(r, key) || !RESOURCE_TYPE.test(key) || num(r[key]) === null) continue;
    out[key] = r[key];
    kept++;
  }
  return out;
}

/** At most MAX_HOOK_ERRORS strings of at most MAX_HOOK_ERROR_CHARS each. */
function hookErrors(list) {
  if (!Array.isArray(list)) return [];
  const out = [];
  for (let i = 0; i < list.length && i < MAX_HOOK_ERRORS; i++) {
    if (typeof list[i] === 'string') out.push(list[i].slice(0, MAX_HOOK_ERROR_CHARS));
  }
  return out;
}

function logWrite(m) {
  if (!STREAMS.has(m.stream) || !isErrno(m.code)) return null;
  return { stream: m.stream, code: m.code };
}

const MAX_ADDRESS_CHARS = 64;

/** A fork-mode server's listen(): a TCP port (1-65535) on an address (null: any), or null. */
function listenQuery(m) {
  if (!Number.isSafeInteger(m.id) || !Number.isInteger(m.port) || m.port < 1 || m.port > 65535) return null;
  if (m.addressType !== 4 && m.addressType !== 6) return null;
  if (m.address !== null && (typeof m.address !== 'string' || m.address.length > MAX_ADDRESS_CHARS)) return null;
  return { id: m.id, address: m.address, port: m.port, addressType: m.addressType, flags: Number.isInteger(m.flags) ? m.flags : 0 };
}

/** The outcome of a PROFILE / HEAP request, or null without a usable request id. */
function diagnosticDone(m) {
  if (!Number.isSafeInteger(m.id)) return null;
  if (m.ok === true) return { id: m.id, ok: true, bytes: num(m.bytes), heapUsed: num(m.heapUsed) };
  const e = obj(m.error) ?? EMPTY;
  return {
    id: m.id,
    ok: false,
    error: {
      code: DIAGNOSTIC_CODES.has(e.code) ? e.code : 'E_DIAGNOSTICS',
      message: typeof e.message === 'string' ? e.message.slice(0, MAX_DIAGNOSTIC_ERROR_CHARS) : 'the agent gave no reason',
    },
  };
}

/**
 * One guard per agent message: (received message) => the fields to act on, or null. The
 * daemon's messages need none: they carry no fields, and the agent trusts its daemon.
 */
const GUARDS = Object.freeze({
  [FROM_AGENT.READY]: () => EMPTY,
  [FROM_AGENT.DRAINED]: (m) => ({ hookErrors: hookErrors(m.hookErrors) }),
  [FROM_AGENT.METRICS]: (m) => (obj(m.data) ? agentReport(m.data) : null),
  [FROM_AGENT.LOG_ERROR]: logWrite,
  [FROM_AGENT.LOG_RESUMED]: (m) => {
    const w = logWrite(m);
    return w && { ...w, dropped: num(m.dropped) };
  },
  [FROM_AGENT.LOGS_REOPENED]: () => EMPTY,
  [FROM_AGENT.DIAGNOSTIC_DONE]: diagnosticDone,
  [FROM_AGENT.STICKY_SESSION]: (m) => (typeof m.sid === 'string' && STICKY_SID.test(m.sid) ? { sid: m.sid } : null),
  [FROM_AGENT.LISTEN]: listenQuery,
  [FROM_AGENT.LISTEN_CLOSED]: (m) => (Number.isSafeInteger(m.id) ? { id: m.id } : null),
});

module.exports = {
  FROM_AGENT,
  TO_AGENT,
  PM2,
  GUARDS,
  envelope,
  agentMessageName,
  daemonMessageName,
  agentReport,
  MAX_RESOURCE_TYPES,
  MAX_HOOK_ERRORS,
  MAX_HOOK_ERROR_CHARS,
};
