// The boot check of the Node internals the seam relies on (index.js lists them), run by the
// daemon before anything else: synchronous, no worker forked, about a millisecond. Each
// check looks at what the primary can reach without a worker: the objects and prototypes
// superd patches, the source text of the Node functions that place cluster's own listeners,
// send 'disconnect' and read process.execPath (Node's lib/ is plain JavaScript:
// Function.prototype.toString gives it back), and, for the listen queries the seam answers
// in cluster's place (fork.js refusals, reuse-port.js) and the round-robin handoff the seam
// hooks (accept stamps, sticky sessions, the daemon's overload refusals), the source of the
// modules that build and read those messages, cluster's worker side included, which the
// node binary embeds (process.binding('natives')). An unknown shape stops the daemon with
// E_NODE_INTERNALS rather than let a worker misbehave later. What the messages do at run
// time (a connection handed over, a socket listened on) the suite checks on each supported
// Node (test/reload/handoff-guard.test.js, test/reload/reuseport.test.js,
// test/lifecycle/port-owners.test.js, test/hardening/uid-listen.test.js, test/upgrade/).
import cluster from 'node:cluster';
import childProcess from 'node:child_process';
import net from 'node:net';
import { SuperError } from '../../../errors.js';
import { queryAnswer, CLUSTER_CMD } from './query-answer.js';
import { UV_TCP_REUSEPORT } from './reuse-port.js';
import { reusePortSupport } from '../../../connection-path-choice.js';

const source = (fn) => (typeof fn === 'function' ? Function.prototype.toString.call(fn) : '');
/** A function under the wrappers of tracing agents (shimmer keeps the original as __original). */
const unwrapped = (fn) => {
  for (let i = 0; i < 8 && typeof fn?.__original === 'function'; i++) fn = fn.__original;
  return fn;
};
const writable = (obj, name) => {
  for (let o = obj; o; o = Object.getPrototypeOf(o)) {
    const d = Object.getOwnPropertyDescriptor(o, name);
    if (d) return d.writable === true || typeof d.set === 'function';
  }
  return Object.isExtensible(obj);
};

/**
 * A binding of process.binding (deprecated, DEP0111: a warning only under
 * --pending-deprecation, which --throw-deprecation would make a crash after the check): the
 * warning is held off for this call. null when this Node has none.
 * @param {string} name  'natives' (lib/'s sources by module id) or 'tcp_wrap'
 * @returns {any}
 */
function binding(name) {
  const own = Object.getOwnPropertyDescriptor(process, 'noDeprecation');
  try {
    process.noDeprecation = true;
    // @ts-expect-error process.binding is left out of Node's typings (deprecated, still there in 20 to 24)
    return process.binding(name);
  } catch {
    return null;
  } finally {
    if (own) Object.defineProperty(process, 'noDeprecation', own);
    else delete process.noDeprecation;
  }
}

/** Node's sources of its builtin modules: id (lib/<id>.js) -> text, '' when unreadable. */
const builtinSources = () => {
  const natives = binding('natives');
  return (id) => (typeof natives?.[id] === 'string' ? natives[id] : '');
};

/**
 * The property names of the first object literal after `head` in `src` (a flat literal:
 * `a: x`, `b`, `...c` give a, b, ...c); null when `head` is not there.
 * @param {string} src
 * @param {RegExp} head  from the literal's `{` or before it
 */
function literalKeys(src, head) {
  const at = src.search(head);
  if (at < 0) return null;
  const open = src.indexOf('{', at);
  const body = src.slice(open + 1, src.indexOf('}', open)).replace(/\/\/.*$/gm, '');
  return body.split(',').map((p) => p.trim().split(/\s*:/)[0]).filter(Boolean);
}
const hasKeys = (keys, want) => keys !== null && want.every((k) => keys.includes(k));

/**
 * What the listen queries the seam answers in cluster's place rely on (fork.js refusals on
 * every Node; reuse-port.js where this Node has reusePort): [what, holds].
 * @param {(id: string) => string} builtin  Node's source of a builtin module
 * @param {any} netModule
 * @param {any} tcpConstants  libuv's TCP flags as Node's tcp_wrap binding has them
 * @param {boolean} reusePort  this Node binds reuseport sockets (reuse-port.js)
 * @returns {[string, boolean][]}
 */
function listenQueryChecks(builtin, netModule, tcpConstants, reusePort) {
  const child = builtin('internal/cluster/child');
  const utils = builtin('internal/cluster/utils');
  const primary = builtin('internal/cluster/primary');
  const netSource = builtin('net');
  /** @type {[string, boolean][]} */
  const flag = reusePort ? [[`libuv's UV_TCP_REUSEPORT flag is ${UV_TCP_REUSEPORT} (Node's tcp_wrap constants)`, tcpConstants?.UV_TCP_REUSEPORT === UV_TCP_REUSEPORT]] : [];
  // process.binding is deprecated (DEP0111): a Node that drops it, or its permission model,
  // leaves the sources' checks to the suite rather than refuse to boot on a Node whose
  // cluster may be fine.
  if (!child || !utils || !primary || !netSource) return flag;
  // The fields of the seam's answer (query-answer.js) but cmd, which sendHelper sets.
  const answer = Object.keys(queryAnswer(0, 0, '')).filter((k) => k !== 'cmd');
  const shared = child.slice(child.indexOf('function shared('), child.indexOf('function rr('));
  /** @type {[string, boolean][]} */
  const checks = [
    [`cluster's messages are {cmd: '${CLUSTER_CMD}', ...message, seq}, and an answer finds its callback by ack alone (utils.js sendHelper, internal)`,
      new RegExp(`\\{\\s*cmd:\\s*'${CLUSTER_CMD}',\\s*\\.\\.\\.message,\\s*seq\\s*\\}`).test(utils) && /callbacks\.get\(message\.ack\)/.test(utils)],
    ['a worker\'s listen() sends the primary {address, port, addressType, fd, flags} (net.js listenInCluster) as {act: \'queryServer\', ...} (child.js _getServer)',
      hasKeys(literalKeys(netSource, /const serverQuery = \{/), ['address', 'port', 'addressType', 'fd', 'flags'])
      && hasKeys(literalKeys(child, /const message = \{\s*act: 'queryServer'/), ['act', '...options'])],
    [`cluster's primary answers a listen query with {${answer.join(', ')}} (primary.js queryServer; superd's own answers: query-answer.js)`,
      hasKeys(literalKeys(primary, /send\(worker, \{\s*errno/), answer)],
    ['cluster\'s primary drops a message whose act it has no handler for (primary.js onmessage)',
      /const fn = methodMessageMapping\[message\.act\];\s*if \(typeof fn === 'function'\)/.test(primary)],
    ['a worker takes an answer without a handle as round-robin\'s, its errno failing the listen() (child.js rr())',
      /send\(message, \(reply, handle\) =>/.test(child) && /function rr\(message\b[^)]*\)\s*\{\s*if \(message\.errno\)\s*return cb\(message\.errno, null\)/.test(child)],
  ];
  if (!reusePort) return checks;
  const createServerHandle = source(netModule._createServerHandle);
  checks.push(
    ['a worker takes an answer with a handle as a shared handle it listens on, and sends {act: \'close\', key} when its server closes (child.js shared())',
      /if \(handle\) \{\s*(\/\/.*\s*)?shared\(reply,/.test(child) && /send\(\{ act: 'close', key \}\)/.test(shared) && /cb\(message\.errno, handle\)/.test(shared)],
    ['cluster\'s primary ignores a worker\'s close of a key it holds no handle for (primary.js close())',
      /function close\(worker, message\) \{\s*const key = message\.key;\s*const handle = handles\.get\(key\);\s*if \(handle && handle\.remove\(worker\)\)/.test(primary)],
    ['child_process sends a raw TCP handle to the worker (net.Native)',
      /handle instanceof TCP\b[^{]*\{\s*message\.type = 'net\.Native'/.test(builtin('internal/child_process'))],
    ['net.js createServerHandle binds with the flags it is given, its fifth argument (reuse-port.js adds UV_TCP_REUSEPORT)',
      /^function \w*\(address, port, addressType, fd, flags\)/.test(createServerHandle) && /\.bind6?\(address, port, flags\)/.test(createServerHandle)],
    ['net.js gives a listening handle onconnection and its server under owner_symbol, which onconnection reads (lib/worker/lent-listen.cjs)',
      /this\._handle\.onconnection = onconnection;\s*this\._handle\[owner_symbol\] = this;/.test(netSource) && /function onconnection\(err, clientHandle\) \{\s*const handle = this;\s*const self = handle\[owner_symbol\];/.test(netSource)],
    ...flag,
  );
  return checks;
}

/**
 * What the seam relies on in the round-robin handoff (round_robin_handle.js), from its
 * source: [what, holds]; none when the source is out of reach (left to the suite).
 * @param {(id: string) => string} builtin  Node's source of a builtin module
 * @returns {[string, boolean][]}
 */
function handoffChecks(builtin) {
  const rr = builtin('internal/cluster/round_robin_handle').replace(/\/\/.*$/gm, '');
  if (!rr) return [];
  return [
    ['a round-robin listener\'s onconnection is distribute(err, handle), which queues the handle and hands it to a free worker at once (round_robin_handle.js: accept stamps, the daemon\'s overload refusals)',
      /this\.handle\.onconnection = \(err, handle\) => this\.distribute\(err, handle\)/.test(rr) && /append\(this\.handles, handle\);[\s\S]{0,300}?this\.handoff\(worker\)/.test(rr)],
    ['the answer to a handed connection closes an accepted handle (else hands it out again), then hands that worker its next connection at once (round_robin_handle.js handoff: sticky sessions, the daemon\'s overload refusals)',
      /sendHelper\(worker\.process, message, handle, \(reply\) => \{\s*if \(reply\.accepted\)\s*handle\.close\(\);\s*else\s*this\.distribute\(0, handle\);\s*this\.handoff\(worker\);\s*\}\)/.test(rr)],
  ];
}

/**
 * Each internal the seam relies on, as [what it is, whether this Node has it].
 * @param {{cluster?: any, childProcess?: any, net?: any, proc?: any, builtin?: (id: string) => string, tcpConstants?: any, reusePort?: boolean}} [node]
 *   the modules to check, Node's own sources by module id, libuv's TCP flags, and whether the
 *   reusePort path is in use (a test passes doctored ones)
 * @returns {string[]} what this Node lacks or changed (empty: all there)
 */
export function clusterInternalsProblems(node = {}) {
  const c = node.cluster ?? cluster;
  const cp = node.childProcess ?? childProcess;
  const server = (node.net ?? net).Server?.prototype;
  const proc = node.proc ?? process;
  const fork = source(c.fork);
  const disconnect = source(c.Worker?.prototype?.disconnect);
  const builtin = node.builtin ?? builtinSources();
  /** @type {[string, boolean][]} */
  const checks = [
    ['cluster is the primary, with fork() and setupPrimary()', c.isPrimary === true && typeof c.fork === 'function' && typeof c.setupPrimary === 'function'],
    ['cluster.schedulingPolicy is settable, with SCHED_RR and SCHED_NONE', typeof c.SCHED_RR === 'number' && typeof c.SCHED_NONE === 'number' && writable(c, 'schedulingPolicy')],
    ['cluster.fork() registers cluster\'s own \'internalMessage\' listener on the worker\'s process', /\.on\(\s*'internalMessage'/.test(fork)],
    ['cluster.fork() registers cluster\'s own \'disconnect\' listener (it drops the worker\'s servers)', /\.once\(\s*'disconnect'/.test(fork)],
    ['Worker.prototype.disconnect (primary) sends {act: \'disconnect\'} and sets exitedAfterDisconnect', /act:\s*'disconnect'/.test(disconnect) && /exitedAfterDisconnect\s*=\s*true/.test(disconnect)],
    ['Worker.prototype.isConnected is a method', typeof c.Worker?.prototype?.isConnected === 'function'],
    ['child_process.fork() reads process.execPath when called', /process\.execPath/.test(source(unwrapped(cp.fork)))],
    ['process.execPath is writable', writable(proc, 'execPath') && typeof proc.execPath === 'string'],
    ['ChildProcess is an EventEmitter with prependListener', typeof cp.ChildProcess?.prototype?.prependListener === 'function'],
    ['net.Server.prototype.listen is a writable method', typeof server?.listen === 'function' && writable(server, 'listen')],
    ['net._createServerHandle(address, port, addressType, fd, flags) builds a listening handle (fork-mode apps\' sockets, as cluster\'s SharedHandle)', typeof (node.net ?? net)._createServerHandle === 'function'],
    ['net.Server.prototype._listen2 is the method a server binds through (the agent of a fork-mode worker routes it to the daemon\'s socket)', typeof server?._listen2 === 'function'],
    ['net.Socket wraps a given raw handle (options.handle: sticky sessions read a connection\'s head; the daemon\'s overload refusals answer one)', /options\.handle/.test(source((node.net ?? net).Socket))],
    ...listenQueryChecks(builtin, node.net ?? net, node.tcpConstants ?? binding('tcp_wrap')?.constants, node.reusePort ?? reusePortSupport().ok),
    ...handoffChecks(builtin),
  ];
  return checks.filter(([, ok]) => !ok).map(([what]) => what);
}

/** Throws E_NODE_INTERNALS when this Node lacks an internal the seam relies on. */
export function assertClusterInternals(node) {
  const missing = clusterInternalsProblems(node);
  if (missing.length === 0) return;
  throw new SuperError('E_NODE_INTERNALS', `Node ${process.version} changed what superd relies on in node:cluster: ${missing.join('; ')} no longer holds. `
    + 'Run the daemon on a Node release superd supports (20.19+, 22.12+, 24), or a superd release that supports this one');
}
