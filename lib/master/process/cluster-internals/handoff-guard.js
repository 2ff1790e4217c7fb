// Closes four holes in node:cluster's connection handoff (internal/cluster/
// round_robin_handle.js, internal/child_process.js, Node 20 to 24). Under round-robin the
// primary accepts each connection, sends it to a worker ('newconn') and keeps its own copy
// until the worker answers. Each hole leaves a client connected to nobody, until its own timeout:
//   1. The worker dies or disconnects before answering: Node waits for that answer forever.
//      We answer "refused" in its place, so Node hands the connection to another worker.
//   2. The last worker of a server closes it while a connection is on its way: the worker
//      refuses it, and Node queues it on a listener that has no worker left and is closed.
//      We close that connection, as Node closes the rest of that queue.
//   3. A worker's channel ends while a sent connection still waits for the worker's
//      receipt: Node then never emits 'disconnect', so cluster keeps the dead worker in
//      the server's rotation and the listener can never close. We emit it once the
//      process has exited and its channel has ended ('close').
//   4. The primary binds a new round-robin server a few ticks after the worker's listen
//      query, and RoundRobinHandle.remove() reads the server's handle, still null until
//      then. So a worker disconnected in between (asked to stop while its first listen()
//      was on its way: the query and its 'drained' arrive in one read) throws there, leaves
//      the server bound with no worker, and then fails cluster's "Resource leak" assertion
//      when the last worker exits, which loses that worker's 'exit' event: a stop that
//      waits for it runs to its deadline. We hold such a disconnect until every query of
//      the worker is answered (super run, SIGINT just after an app's first lines: 3 stops
//      in 100 took 25 s and exited 1).
// On a bare cluster under new-connection load, without the guard: 25 hung connections in
// 30 SIGKILLs, 39 in 20 stops of 2 workers; with it, 0. test/reload/handoff-guard.test.js
// fails without it.
// Part of the seam (index.js lists what it relies on): worker-hooks.js calls each method at
// its place in the worker's one dispatch. Cost: a few Map operations per handed connection.

/** key -> ids of workers serving it (Node's RoundRobinHandle.all, seen from outside). */
const serving = new Map();

const NONE = new Set();
/** Ids of the workers serving `key` now (sticky-router.js chooses among them). */
export function servingWorkers(key) {
  return serving.get(key) ?? NONE;
}

/**
 * The guard of one worker.
 * @param {import('node:cluster').Worker} worker
 * @param {(seq: number) => void} answerRefused  emits Node's "not accepted" answer to connection `seq` in the worker's place
 */
export function handoffGuard(worker, answerRefused) {
  const inFlight = new Map(); // seq -> { key, handle }: connections sent, not yet answered
  const keys = new Set();
  const join = (key) => {
    keys.add(key);
    if (!serving.has(key)) serving.set(key, new Set());
    serving.get(key).add(worker.id);
  };
  const leave = (key) => {
    keys.delete(key);
    const ids = serving.get(key);
    ids?.delete(worker.id);
    if (ids?.size === 0) serving.delete(key);
  };

  // Hole 4: listen queries taken, not yet answered (seq); a disconnect asked meanwhile waits.
  const querying = new Set();
  let disconnectHeld = false;
  const disconnect = worker.disconnect;
  worker.disconnect = function disconnectOnceAnswered() {
    if (querying.size === 0 || !worker.isConnected()) return disconnect.call(worker);
    worker.exitedAfterDisconnect = true; // as Node's own disconnect sets it: later queries are dropped
    disconnectHeld = true;
    return worker;
  };

  let ended = false;
  return {
    /** A listen query arrived (before cluster, which may answer at once, and before any guard that may refuse it). */
    queried(seq) {
      if (!worker.exitedAfterDisconnect) querying.add(seq);
    },
    /** The primary's answer to query `seq` goes out: `key` is the server's when it succeeded. */
    answering(key, ok) {
      if (ok && typeof key === 'string') join(key);
    },
    /** ... and has gone out, with Node's own work for it done (the handoff of queued connections). */
    answered(seq) {
      if (!querying.delete(seq) || !disconnectHeld || querying.size > 0) return;
      disconnectHeld = false;
      setImmediate(() => worker.isConnected() && disconnect.call(worker));
    },
    connectionSent(seq, key, handle) {
      if (handle) inFlight.set(seq, { key, handle });
    },
    /** Node sends the worker 'disconnect' and drops it from its handles now. */
    disconnecting() {
      for (const key of keys) leave(key);
    },
    /** After cluster acted on the worker's answer to connection `seq`. */
    connectionAnswered(seq, accepted) {
      const sent = inFlight.get(seq);
      if (!sent) return;
      inFlight.delete(seq);
      if (!accepted && !serving.has(sent.key)) sent.handle.close(); // hole 2
    },
    /** After cluster closed the worker's server `key`. */
    closed(key) {
      leave(key);
    },
    /** After cluster's own 'disconnect' listener took the worker out of its handles; no answer can come now. */
    disconnected() {
      ended = true;
      querying.clear();
      for (const key of keys) leave(key);
      for (const [seq, { key, handle }] of inFlight) {
        answerRefused(seq); // hole 1
        if (!serving.has(key)) handle.close(); // no worker left: Node queued it on a closed listener
      }
      inFlight.clear();
    },
    /** The process exited and its stdio closed: true when Node will never emit 'disconnect' (hole 3). */
    missedDisconnect(channelGone) {
      return !ended && channelGone;
    },
  };
}
