// The one seam between superd and node:cluster's private protocol. Every hook superd has
// into cluster or child_process internals lives in this folder; the rest of the daemon
// calls the functions below, and docs/architecture.md ("The seam to node:cluster") says
// the same. shape-check.js checks at boot what it can of this list without a worker
// (marked [boot]: the objects superd patches, and the source text of the Node code that
// builds and reads each message the seam answers in cluster's place, cluster's worker side
// included, as the node binary embeds it; [boot, reusePort]: only on a Node with reusePort);
// the rest is checked by the suite on Node 20, 22 and 24.
//
// Node internals relied on (lib/internal/cluster/{primary,child,round_robin_handle,
// shared_handle,utils}.js, lib/internal/child_process.js, lib/net.js):
//   Messages (a worker's process, event 'internalMessage': cmd 'NODE_CLUSTER', per-side seq):
//     - cluster's messages are {cmd: 'NODE_CLUSTER', ...message, seq} (utils.js sendHelper),
//       and an answer's callback is found by its ack alone [boot];
//     - worker -> primary {act: 'queryServer', seq, address, port, addressType, fd, index,
//       data, flags, backlog}: a worker's listen() (net.js listenInCluster's query, spread by
//       child.js _getServer) [boot]; the primary answers with {ack: seq, errno, key, data,
//       sockname?}, and a handle under `os` (primary.js queryServer) [boot]. The seam answers
//       some in cluster's place (fork.js refuses one, reuse-port.js serves one), with that
//       message built in one place (query-answer.js): an answer without a handle is read as
//       round-robin's, a non-zero errno failing the listen() (child.js rr()) [boot]; the
//       query's act renamed to one cluster's primary has no handler for is dropped
//       (primary.js onmessage) [boot]. Key: address:port:addressType:fd:index on Node 20,
//       without :index for port > 0 from 22.
//     - primary -> worker {act: 'newconn', key, seq} with the connection's handle; the worker
//       answers {ack: seq, accepted}; an unanswered one is never handed to anyone else.
//       The worker's child.js reads only key and seq: superd adds superdAcceptedAt (the
//       accept time, for the worker's queue-wait shedding; an app with max_queue_wait only).
//       Node finds the callback of an answer by its seq alone (internal/cluster/utils.js: one
//       map for every worker), so sticky-router.js may send Node's message to another worker
//       of the app that serves the same key: that worker's answer completes Node's handoff,
//       and a refusal ("not accepted") makes Node hand the connection out again.
//       RoundRobinHandle's callback for that answer closes the primary's copy of the handle
//       (handle.close(), synchronously) when accepted, then hands the worker its next
//       connection: sticky-router.js ends a worker's turn at once by emitting an "accepted"
//       answer with that handle's close held for the call, and gives the connection back
//       later through the listener's onconnection (distribute: it queues the handle and
//       hands it to the next free worker).
//       The daemon's refusals (handoff-shedding.js, an app with overload.max_queue_wait)
//       rely on the same callback [boot: round_robin_handle.js's source]: it hands the
//       worker its next queued connection synchronously (handoff -> sendHelper ->
//       process.send), before the seam's appended 'internalMessage' listener sees the
//       answer, so an answer after which no 'newconn' went to that worker means Node found
//       the queue empty (if Node deferred it, the queue's standing state would end more
//       often: the daemon refuses less, the workers shed as before); and a connection
//       refused at its handoff ends Node's handoff with an "accepted" answer whose close is
//       held, as the sticky router's does.
//   A handle the onconnection wrapper does not pass on to distribute is the daemon's own:
//     the daemon's refusal answers it through a net.Socket made on it (options.handle [boot]).
//   The connection's handle (libuv's TCPWrap, RoundRobinHandle's accept): getpeername(out)
//     (sticky: ip); readStart/readStop through a net.Socket made on it (options.handle
//     [boot]), whose bytes are consumed before Node sends the handle (sticky: sid / cookie:
//     the agent puts them back).
//     - worker -> primary {act: 'close', key}; primary -> worker {act: 'disconnect'}.
//   Order: cluster.fork() registers cluster's 'internalMessage' and 'disconnect' listeners
//     on the worker's process before it returns [boot]; Node emits 'internalMessage' for a
//     message in order with the others (process.nextTick), and the same object reaches
//     every listener, so a listener prepended after fork() sees and may edit a query first.
//   Private properties and prototypes:
//     - worker.process.send is an own property per process (setupChannel), wrapped once;
//     - Worker.prototype.disconnect (primary) sends 'disconnect' and sets
//       exitedAfterDisconnect [boot]; worker.disconnect is wrapped per worker;
//     - worker.exitedAfterDisconnect: set, queries are dropped by the primary;
//     - proc.channel: null once the channel has ended;
//     - RoundRobinHandle listens through net.createServer(assert.fail).listen() and keeps
//       the server's `_handle` [boot: net.Server.prototype.listen is patchable]; its
//       'listening' listener sets the raw handle's onconnection (distribute), wrapped a tick
//       later to stamp each accepted handle (absent: no stamp, the worker's own time);
//     - SharedHandle builds an fd's handle with net._createServerHandle, which wants no
//       address or port beside the fd; shared-listen.js builds a fork-mode Node worker's
//       listening socket with it too [boot], and the agent in that worker routes its
//       server's bind through net.Server.prototype._listen2 (lib/worker/shared-listen.cjs)
//       [boot: the same Node runs both];
//     - a queryServer answered with a handle is a shared handle to the worker's child.js
//       (shared(): it listens on it, and sends {act: 'close', key} when its server closes)
//       [boot, reusePort]; the primary's close() ignores a key it holds no handle for [boot,
//       reusePort]: reuse-port.js answers a query so, with a SO_REUSEPORT socket it bound
//       with net._createServerHandle, which binds with the flags it is given [boot,
//       reusePort], and libuv's UV_TCP_REUSEPORT flag (2; libuv 1.49+, Node 22.12+/23.1+;
//       checked against Node's tcp_wrap constant) [boot, reusePort]; proc.send sends such a
//       raw TCP handle as 'net.Native' (internal/child_process.js) [boot, reusePort];
//     - a worker's listening handle carries net.js's `onconnection` and, under the symbol
//       described 'owner_symbol', its net.Server, which `onconnection` reads: the agent gives
//       both to a reuseport socket the daemon lends it (lib/worker/lent-listen.cjs; checked by
//       test/reload/reuseport.test.js on Node 22 and 24, where reuseport runs) [boot, reusePort];
//     - cluster.schedulingPolicy is read at the first fork [boot];
//     - cluster.setupPrimary ignores execPath; child_process.fork reads process.execPath at
//       each call [boot], so it is swapped around the fork.
//
// Public ways Node now offers, and whether they replace a hook:
//   - net.Server listen({reusePort}) (22.12+, 23.1+; not 20): each worker binds its own
//     socket as an exclusive listen and the kernel balances (SO_REUSEPORT). It bypasses the
//     primary, so no listen guard sees it (a second app could join the port's group): superd's
//     `reuseport` binds each worker's socket in the daemon instead, after the guards
//     (reuse-port.js). Apps may still call it themselves, unguarded.
//   - cluster.setupPrimary({execPath}) does not exist; child_process.fork({execPath}) is not
//     reachable through cluster: the swap stays.
//   - No public event or option gives a listen query, a handed connection or a
//     round-robin listener: the message hooks and the listen patch stay.
export { forkWorker, serveInheritedSockets, listenRefusal } from './fork.js';
export { trackRoundRobinListeners, closeRoundRobinListeners, lastHandoffAt } from './round-robin-listeners.js';
export { clusterInternalsProblems, assertClusterInternals } from './shape-check.js';
export { stickySession } from './sticky-router.js';
export { sharesListen, shareListen, sharedListenClosed, takenOver } from './shared-listen.js';
export { takeDaemonRefusals } from './handoff-shedding.js';
export { serveInheritedReusePort, reusePortFds } from './reuse-port.js';
