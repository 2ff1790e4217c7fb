// The boot check of the Node internals the seam relies on (index.js lists them), run by the
// daemon before anything else: synchronous, no worker forked, about a millisecond. Each
// check looks at what the primary can reach without a worker: the objects and prototypes
// superd patches, and the source text of the Node functions that place cluster's own
// listeners, send 'disconnect' and read process.execPath (Node's lib/ is plain JavaScript:
// Function.prototype.toString gives it back). An unknown shape stops the daemon with
// E_NODE_INTERNALS rather than let a worker misbehave later. The wire messages themselves
// (queryServer, newconn, their answers) are sent only by a worker: the suite checks them on
// each supported Node (test/reload/handoff-guard.test.js, test/lifecycle/port-owners.test.js,
// test/hardening/uid-listen.test.js, test/upgrade/).
import cluster from 'node:cluster';
import childProcess from 'node:child_process';
import net from 'node:net';
import { SuperError } from '../../../errors.js';

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
 * Each internal the seam relies on, as [what it is, whether this Node has it].
 * @param {{cluster?: any, childProcess?: any, net?: any, proc?: any}} [node]  the modules to check (a test passes doctored ones)
 * @returns {string[]} what this Node lacks or changed (empty: all there)
 */
export function clusterInternalsProblems(node = {}) {
  const c = node.cluster ?? cluster;
  const cp = node.childProcess ?? childProcess;
  const server = (node.net ?? net).Server?.prototype;
  const proc = node.proc ?? process;
  const fork = source(c.fork);
  const disconnect = source(c.Worker?.prototype?.disconnect);
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
