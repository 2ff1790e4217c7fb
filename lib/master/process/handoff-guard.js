// Closes three holes in node:cluster's connection handoff (Node 20: internal/cluster/
// round_robin_handle.js, internal/child_process.js). Under round-robin the primary accepts
// each connection, sends it to a worker ('newconn') and keeps its own copy until the
// worker answers. Each hole leaves a client connected to nobody, until its own timeout:
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
// Only message fields are read; the cost is one property check per cluster message.
import cluster from 'node:cluster';

const SYNTHETIC = Symbol('superd synthetic message');
/** key -> ids of workers serving it (Node's RoundRobinHandle.all, seen from outside). */
const serving = new Map();

let installed = false;

/** Watches every worker forked from now on. */
export function installHandoffGuard() {
  if (installed) return;
  installed = true;
  cluster.on('fork', watch);
}

function watch(worker) {
  const proc = worker.process;
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
  // Prepended: seen before cluster (which may answer at once) and before our other guards
  // (which may refuse, answering too).
  proc.prependListener('internalMessage', (message) => {
    if (message?.cmd === 'NODE_CLUSTER' && message.act === 'queryServer' && !worker.exitedAfterDisconnect) querying.add(message.seq);
  });

  const send = proc.send;
  proc.send = function sendWatched(message, handle, ...rest) {
    if (message?.cmd === 'NODE_CLUSTER') {
      if (message.act === 'newconn' && handle) inFlight.set(message.seq, { key: message.key, handle });
      else if (message.act === 'disconnect') for (const key of keys) leave(key); // Node drops it from its handles now
      else if (message.ack !== undefined && typeof message.key === 'string' && !message.errno) join(message.key); // queryServer answered
    }
    const sent = send.call(this, message, handle, ...rest);
    if (message?.cmd === 'NODE_CLUSTER' && querying.delete(message.ack) && disconnectHeld && querying.size === 0) {
      disconnectHeld = false;
      // After Node's own work for this answer (the handoff of queued connections).
      setImmediate(() => worker.isConnected() && disconnect.call(worker));
    }
    return sent;
  };

  // Registered after cluster's own listener, so Node has acted on each message first.
  proc.on('internalMessage', (message) => {
    if (message?.cmd !== 'NODE_CLUSTER' || message[SYNTHETIC]) return;
    if (message.act === 'close') leave(message.key);
    else if (message.ack !== undefined && inFlight.has(message.ack)) {
      const { key, handle } = inFlight.get(message.ack);
      inFlight.delete(message.ack);
      if (!message.accepted && !serving.has(key)) handle.close(); // hole 2
    }
  });

  // Runs after cluster's own 'disconnect' listener has taken the worker out of its
  // handles; no answer can arrive once the channel has ended.
  let ended = false;
  proc.once('disconnect', () => {
    ended = true;
    querying.clear();
    for (const key of keys) leave(key);
    for (const [seq, { key, handle }] of inFlight) {
      proc.emit('internalMessage', { cmd: 'NODE_CLUSTER', ack: seq, accepted: false, [SYNTHETIC]: true }); // hole 1
      if (!serving.has(key)) handle.close(); // no worker left: Node queued it on a closed listener
    }
    inFlight.clear();
  });
  proc.once('close', () => {
    if (!ended && proc.channel == null) proc.emit('disconnect'); // hole 3
  });
}
