// Forking a cluster worker with its own settings, and the seam's hooks on it (worker-hooks.js).
import os from 'node:os';
import cluster from 'node:cluster';
import { TO_AGENT } from '../../../ipc/agent-protocol.js';
import { tellAgent } from '../agent-channel.js';
import { hookWorker } from './worker-hooks.js';
import { handedOff } from './round-robin-listeners.js';
import { takeQuery, queryAnswer } from './query-answer.js';

const UV_EACCES = -os.constants.errno.EACCES;

/** @type {(address: unknown, port: unknown) => number|null} the inherited socket of address:port (upgrade/ sets it) */
let inheritedSocketOf = () => null;
/** worker process -> the daemon's reason for the last listen it refused (for the failure report) */
const refusals = new WeakMap();

/**
 * Cluster settings are global but read at each fork, so setupPrimary(settings) and fork()
 * happen here, in one synchronous call: no await in between, where another slot's fork
 * could set its own. setupPrimary silently ignores `execPath` (Node 20 to 24: fork() is
 * given none, and child_process.fork() takes process.execPath), so process.execPath is
 * swapped around the fork and restored before anything else can run.
 * @param {object} o
 * @param {import('node:cluster').ClusterSettings} o.settings  for cluster.setupPrimary
 * @param {string} o.execPath  the program the worker is exec'd through
 * @param {object} o.env
 * @param {import('./worker-hooks.js').ListenWatch[]} o.watches  the worker's listen watches, in the order they judge a query
 * @param {{app: string, slot: number, by: string, cookie: string|null}|null} [o.sticky]  the app's sticky: (sticky-router.js)
 * @param {boolean} [o.reusePort]  the worker's TCP ports are its slot's SO_REUSEPORT sockets (reuse-port.js)
 * @param {{app: string, slot: number}} [o.slot]  the worker's app and slot
 * @param {(kind: 'cluster'|'reuseport') => void} [o.servedInherited]  called when a listen of the worker is served from an
 *   inherited socket (through cluster), or from reuseport sockets while the app's path is another
 * @param {{maxQueueWait: number, status: number, retryAfter: number}|null} [o.queueShedding]  the daemon refuses the app's
 *   connections while its handoff queue stands (handoff-shedding.js)
 * @param {boolean} [o.acceptTimes]  the app has overload.max_queue_wait: each connection handed to the worker says when it was accepted
 * @returns {import('node:cluster').Worker}
 */
export function forkWorker({ settings, execPath, env, watches, sticky = null, reusePort = false, slot, servedInherited, queueShedding = null, acceptTimes = false }) {
  const daemonNode = process.execPath;
  cluster.setupPrimary(settings);
  process.execPath = execPath;
  try {
    const worker = cluster.fork(env);
    hookWorker(worker, watches, { refuse, inheritedFd: (q) => inheritedSocketOf(q.address, q.port), handedOff, sticky, reusePort, slot, servedInherited, queueShedding, acceptTimes });
    return worker;
  } finally {
    process.execPath = daemonNode;
  }
}

/**
 * Serves workers' TCP listen queries from inherited sockets from now on (upgrade/).
 * @param {(address: unknown, port: unknown) => number|null} lookup  the inherited socket of address:port, if any
 */
export function serveInheritedSockets(lookup) {
  inheritedSocketOf = lookup;
}

/** The inherited socket of address:port, if upgrade/ serves any (fork-mode listens ask it too: shared-listen.js). */
export const inheritedSocket = (address, port) => inheritedSocketOf(address, port);

/**
 * Answers a listen query as Node answers a failed bind: the app's listen() emits 'error'
 * with `errno` (EACCES by default), after its agent printed why on its stderr. Cluster's own
 * listener (which runs after) drops the query.
 */
function refuse(proc, msg, refusal, errno = UV_EACCES) {
  takeQuery(msg);
  const where = msg.addressType === -1 ? msg.address : `port ${msg.port}`;
  const message = `superd: listen on ${where} refused: ${refusal}`;
  refusals.set(proc, message);
  try {
    tellAgent(proc, TO_AGENT.LISTEN_REFUSED, { message });
    proc.send(queryAnswer(msg.seq, errno));
  } catch {} // the channel closed: nobody waits for the answer
}

/**
 * The daemon's reason for the last listen of this worker it refused, as its agent printed
 * it: a failure report shows it even when the worker's crash printed more than the stderr
 * tail holds (Node 22 and 24 print the full stack of an unhandled 'error' event).
 * @param {object} proc  the worker's ChildProcess
 * @returns {string|null}
 */
export function listenRefusal(proc) {
  return refusals.get(proc) ?? null;
}
