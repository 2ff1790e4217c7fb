// The one dispatch of a cluster worker's private traffic (index.js lists what it relies on).
// Installed right after cluster.fork() returns, so each hook sits where it must around the
// listeners cluster registered inside fork():
//
//   worker -> primary 'internalMessage' (NODE_CLUSTER):
//     before cluster (one prepended listener), for 'queryServer', in this order:
//       1. the handoff guard counts the query (a disconnect waits for its answer);
//       2. each listen watch of the worker, in the order given (the uid guard, then the
//          port owners): the first refusal answers the query in cluster's place;
//       3. an inherited socket for the queried address:port is set as the query's fd
//          (last: the watches judge what the app asked for, not the daemon's descriptor;
//          the launcher is told, for describe: lib/master/process/connection-path.js);
//       4. else, for an app whose connections take `reuseport` (or a port whose reuseport
//          sockets the daemon holds or inherited from the daemon it replaced), a TCP port's
//          query is answered in cluster's place with the worker's slot's SO_REUSEPORT socket
//          (reuse-port.js).
//     after cluster (one appended listener): 'close' (cluster closed the server) to the
//       handoff guard, the watches and reuse-port.js; a connection's answer {ack, accepted} to the handoff
//       guard and the "last handoff" clock.
//   primary -> worker (proc.send, wrapped once): a query's answer {ack, errno, key} to the
//     handoff guard and the watches; 'newconn' first to the sticky router of a sticky app
//     (which may send it to another worker of the app, through that worker's own send, or
//     end this worker's turn with a synthetic "accepted" and hold the connection while it
//     reads its head, then hand it back to the listener), then to the handoff guard;
//     'disconnect' to the handoff guard. For an app with overload.max_queue_wait, a
//     'newconn' gets one field, superdAcceptedAt (ms since the epoch, when the daemon
//     accepted the connection: round-robin-listeners.js), read by the worker's overload
//     shedding (lib/worker/overload.cjs) before cluster's listener; Node's child ignores it,
//     and no other app's worker reads it, so none gets it. For an app with it (not
//     sticky), the 'newconn' also feeds the listener's handoff queue state (its wait there:
//     handoff-shedding.js), and the worker's answer after which Node sent it nothing
//     (it found the queue empty) tells that state a worker is free.
//   worker.disconnect (wrapped once): the handoff guard holds it while a query is unanswered.
//   'disconnect' (after cluster's own listener): the handoff guard, then the watches.
//   'close': the 'disconnect' Node missed (handoff guard, hole 3).
import { handoffGuard, servingWorkers } from './handoff-guard.js';
import { stickyRouter, stickyMember, sendPrefix } from './sticky-router.js';
import { acceptedAt, handoffQueueOf, needAcceptStamps } from './round-robin-listeners.js';
import { answerWithReusePort, reusePortClosed, reusePortServes } from './reuse-port.js';
import { CLUSTER_CMD as CLUSTER } from './query-answer.js';

const SYNTHETIC = Symbol('superd synthetic message');
const ROUTED = Symbol('superd routed connection'); // a 'newconn' the sticky router placed (never serialized: a symbol key)
// Connections the daemon refuses at their handoff end Node's handoff at once, which hands the
// worker the next queued one from inside that answer: past this depth, one goes to the worker.
const MAX_REFUSAL_CHAIN = 64;
let refusalChain = 0;

/**
 * What net and dgram put in a listen query (lib/net.js listenInCluster, lib/internal/cluster/
 * child.js _getServer), copied: a watch reads it, never Node's message.
 * @typedef {{seq: number, address: unknown, port: unknown, addressType: unknown, fd: unknown}} ListenQuery
 */
/**
 * A watch's verdict on a query: nothing (let it through), a refusal (the app's listen()
 * fails with errno, EACCES by default, and its agent prints why), or new fields for it.
 * @typedef {{refuse: string, errno?: number} | {rewrite: {address?: string}} | undefined | void} QueryVerdict
 */
/**
 * What superd watches in one worker's listens (listen-guard.js, port-owners.js).
 * @typedef {object} ListenWatch
 * @property {(q: ListenQuery) => QueryVerdict} query  before cluster acts on it
 * @property {(seq: number, reply: {key: unknown, errno: unknown}) => void} [answered]  the primary's answer, as it goes out
 * @property {(key: unknown) => void} [closed]  the worker closed the server of that key (after cluster did)
 * @property {() => void} [disconnected]  the worker's channel ended (after cluster dropped its servers)
 */

const isCluster = (m) => m !== null && typeof m === 'object' && m.cmd === CLUSTER;
const queryOf = (m) => ({ seq: m.seq, address: m.address, port: m.port, addressType: m.addressType, fd: m.fd });

/**
 * @param {import('node:cluster').Worker} worker  just forked
 * @param {ListenWatch[]} watches  in the order they judge a query
 * @param {object} o
 * @param {(proc: import('node:child_process').ChildProcess, msg: object, refusal: string, errno?: number) => void} o.refuse
 * @param {(q: ListenQuery) => number|null} o.inheritedFd  the inherited socket serving q's address:port, if any
 * @param {() => void} o.handedOff  a worker answered a handed connection
 * @param {{app: string, slot: number, by: string, cookie: string|null}|null} [o.sticky]  the app's sticky: (sticky-router.js)
 * @param {boolean} [o.reusePort]  the app's connections take `reuseport` (reuse-port.js)
 * @param {{app: string, slot: number}} [o.slot]  the worker's app and slot
 * @param {(kind: 'cluster'|'reuseport') => void} [o.servedInherited]  a listen of the worker was served from an inherited
 *   socket (through cluster), or from reuseport sockets while the app's path is another
 * @param {{maxQueueWait: number, status: number, retryAfter: number}|null} [o.queueShedding]  the app's overload
 *   max_queue_wait (not sticky): the daemon refuses connections while its handoff queue stands (handoff-shedding.js)
 * @param {boolean} [o.acceptTimes]  the app has overload.max_queue_wait: its worker reads each connection's accept time
 */
export function hookWorker(worker, watches, { refuse, inheritedFd, handedOff, sticky = null, reusePort = false, slot = { app: '', slot: -1 }, servedInherited = () => {}, queueShedding = null, acceptTimes = false }) {
  const proc = worker.process;
  // The accept stamps (round-robin-listeners.js), while this worker lives: its accept times
  // and its listener's handoff queue (queueShedding comes only with acceptTimes), the sticky
  // router's hand-back.
  if (sticky || acceptTimes) {
    const release = needAcceptStamps();
    proc.once('exit', release);
    proc.once('close', release);
  }
  const refused = (seq) => proc.emit('internalMessage', { cmd: CLUSTER, ack: seq, accepted: false, [SYNTHETIC]: true });
  // Ends Node's handoff of connection `seq` to this worker as if the worker took it, but
  // keeps the handle open (Node closes its copy of an accepted connection, synchronously in
  // that answer's callback): the sticky router holds it off the worker's turn meanwhile.
  const released = (seq, handle) => {
    const own = Object.getOwnPropertyDescriptor(handle, 'close');
    handle.close = () => {};
    try {
      proc.emit('internalMessage', { cmd: CLUSTER, ack: seq, accepted: true, [SYNTHETIC]: true });
    } finally {
      if (own) Object.defineProperty(handle, 'close', own);
      else delete handle.close;
    }
  };
  const guard = handoffGuard(worker, refused);
  // The handoff queue of the connection last sent to this worker, and its seq: an answer to
  // that seq after which Node sent nothing more means the worker found the queue empty.
  /** @type {import('./handoff-shedding.js').HandoffQueue|null} */
  let sentQueue = null;
  let sentSeq = -1;
  let router = null;
  if (sticky) {
    stickyMember(worker, sticky.app, sticky.slot);
    router = stickyRouter(worker, sticky, sticky.app);
  }
  // Sends connection `message` to `target` (this worker or another of the app), through its
  // own hooked send; one that cannot take it now is answered "refused" in this worker's
  // name, so Node hands the connection out again.
  const deliverer = (message, handle) => (target, prefix) => {
    const to = [target, worker].find((w) => w.isConnected() && !w.exitedAfterDisconnect);
    if (!to) return refused(message.seq);
    if (prefix) sendPrefix(to, prefix);
    to.process.send(message, handle);
  };

  proc.prependListener('internalMessage', (msg) => {
    if (!isCluster(msg) || msg.act !== 'queryServer') return;
    guard.queried(msg.seq);
    for (const watch of watches) {
      const verdict = watch.query(queryOf(msg));
      if (verdict && 'refuse' in verdict) return refuse(proc, msg, verdict.refuse, verdict.errno);
      if (verdict && 'rewrite' in verdict) Object.assign(msg, verdict.rewrite);
    }
    if (msg.fd !== undefined || (msg.addressType !== 4 && msg.addressType !== 6)) return; // UDP, unix paths, an fd of its own
    if ((msg.address != null && typeof msg.address !== 'string') || !Number.isInteger(msg.port)) return; // forged: Node fails it
    const fd = inheritedFd(queryOf(msg));
    // SharedHandle (`os`) builds its handle with net._createServerHandle, which asserts that
    // a handle made from an fd has no address and port: the fd says both.
    if (fd !== null) {
      Object.assign(msg, { fd, address: null, port: 0 });
      servedInherited('cluster');
    } else if (reusePort) answerWithReusePort(proc, msg, { ...slot, workerId: worker.id });
    else if (reusePortServes(slot.app, msg)) {
      // A port whose reuseport sockets the daemon holds (or inherited) stays on them.
      answerWithReusePort(proc, msg, { ...slot, workerId: worker.id });
      servedInherited('reuseport');
    }
  });

  const send = proc.send;
  proc.send = function sendHooked(message, handle) {
    const ours = isCluster(message);
    // A query's answer: Node's ({errno, key, ack, data, ...}) or a refusal's ({errno, key: null, ack}).
    const answer = ours && message.ack !== undefined && 'errno' in message;
    if (answer) {
      guard.answering(message.key, !message.errno);
      for (const watch of watches) watch.answered?.(message.ack, { key: message.key, errno: message.errno });
    } else if (ours && message.act === 'newconn') {
      if (router && handle && !message[ROUTED]) {
        message[ROUTED] = true;
        if (router.route(message.key, handle, deliverer(message, handle), () => released(message.seq, handle))) return true;
      }
      const queue = handoffQueueOf(handle, queueShedding);
      if (queue) {
        const now = Date.now();
        if (queue.handed(acceptedAt(handle), now, servingWorkers(message.key).size, worker) && refusalChain < MAX_REFUSAL_CHAIN) {
          // Refused by the daemon (it queued before the queue was known to stand): Node's
          // handoff ends as if the worker took it, and goes on to the next queued connection.
          refusalChain++;
          try {
            released(message.seq, handle);
          } finally {
            refusalChain--;
          }
          queue.refuse(handle, now);
          return true;
        }
        sentQueue = queue;
        sentSeq = message.seq;
      }
      guard.connectionSent(message.seq, message.key, handle);
      if (acceptTimes) message.superdAcceptedAt = acceptedAt(handle) ?? Date.now();
    } else if (ours && message.act === 'disconnect') guard.disconnecting();
    const sent = send.apply(this, arguments); // arguments: no array built per message
    if (answer) guard.answered(message.ack);
    return sent;
  };

  proc.on('internalMessage', (msg) => {
    if (!isCluster(msg) || msg[SYNTHETIC]) return;
    if (msg.act === 'close') {
      guard.closed(msg.key);
      for (const watch of watches) watch.closed?.(msg.key);
      reusePortClosed(proc, msg.key);
    } else if (msg.ack !== undefined && 'accepted' in msg) {
      handedOff();
      guard.connectionAnswered(msg.ack, msg.accepted);
      if (sentQueue && msg.ack === sentSeq) {
        sentQueue.emptied(Date.now()); // cluster's handoff (run before this listener) sent it nothing more
        sentQueue = null;
      }
    }
  });

  proc.once('disconnect', () => {
    guard.disconnected();
    for (const watch of watches) watch.disconnected?.();
  });
  proc.once('close', () => {
    if (guard.missedDisconnect(proc.channel == null)) proc.emit('disconnect');
  });
}
