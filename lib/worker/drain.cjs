'use strict';
// Graceful retirement inside the worker (docs/measurements.md, draining). The daemon alone
// cannot retire a worker under keep-alive load without resets: cluster's disconnect()
// runs http.Server#close(), which destroys keep-alive sockets that look idle while the
// client's next request is already on the wire. So, when the daemon says "shutdown":
//   1. every response started from now on carries `Connection: close`, so clients
//      reconnect (to a new worker) after it instead of reusing the socket;
//   2. each server stops accepting through net.Server#close (never http's, which would
//      close "idle" sockets); in round-robin mode that also takes the worker out of
//      the daemon's rotation;
//   3. once every connection has ended, the app's onShutdown hooks run, and the agent
//      tells the daemon it is drained; the daemon then disconnects and signals it.
// The app is told when the drain starts (process event 'superd:drain', {deadline}: time to
// say goodbye to its websocket clients), and connections still open near drain_timeout
// are closed cleanly (connections.cjs: websockets with 1001 "going away"), so step 3 comes
// before the deadline and clients reconnect to other workers.
//
// It also keeps a replacement out of the rotation until it is ready (wait_ready, during
// a reload under round-robin): a server whose maxConnections is negative refuses every
// connection the daemon hands it, and the daemon hands it to another worker.
const net = require('node:net');
const dc = require('node:diagnostics_channel');
const connections = require('./connections.cjs');
/** @type {import('node:cluster').Cluster} require() gives the cluster object; Node's typings declare it an ES default export */
const cluster = /** @type {any} */ (require('node:cluster'));

const servers = new Set();
const held = new Map(); // server -> its own maxConnections, while traffic is deferred
const hooks = [];
const serverWatchers = []; // fn(server) for each server as it first listens (sticky.cjs)
let deferring = false;

const listen = net.Server.prototype.listen;
net.Server.prototype.listen = function superdListen(...args) {
  track(this);
  return listen.apply(this, args);
};

function track(server) {
  if (servers.has(server)) return;
  servers.add(server);
  connections.watch(server);
  for (const fn of serverWatchers) fn(server);
  server.once('close', () => servers.delete(server));
  if (deferring) hold(server);
}

function hold(server) {
  if (held.has(server)) return;
  held.set(server, server.maxConnections);
  server.maxConnections = -1;
}

/** Keep servers out of the rotation until admit() (only used under round-robin). */
function deferTraffic() {
  deferring = true;
  for (const s of servers) hold(s);
}

/** The app is ready: its servers take connections from now on. */
function admit() {
  deferring = false;
  for (const [server, own] of held) {
    if (server.maxConnections === -1) server.maxConnections = own;
  }
  held.clear();
}

function markClose({ response }) {
  if (!response.headersSent) response.setHeader('Connection', 'close');
}

/** Registers fn(), run once every connection has ended, before the worker is stopped. */
function onShutdown(fn) {
  if (typeof fn !== 'function') throw new TypeError('onShutdown expects a function');
  hooks.push(fn);
}

/** How long before the daemon's deadline the connections still open are closed. */
const closeMargin = (timeout) => Math.min(1000, Math.max(100, timeout * 0.2));

let drained = null;
/**
 * Runs the drain once; resolves when every server is closed and every hook has run.
 * @param {number} [timeout]  the app's drain_timeout (ms), as the daemon gave it
 */
function drain(timeout) {
  if (drained) return drained;
  admit(); // a worker being retired before it was ready must still finish what it has
  if (typeof timeout === 'number' && Number.isFinite(timeout) && timeout > 0) {
    setTimeout(connections.closeAll, Math.max(0, timeout - closeMargin(timeout))).unref();
    /** @type {any} an event of superd's, not in Node's typings of process.emit */ (process).emit('superd:drain', { deadline: Date.now() + timeout });
  }
  // Subscribed only now, so serving costs nothing extra until retirement.
  dc.subscribe('http.server.request.start', markClose);
  const closing = [...servers].filter((s) => s.listening).map((s) => /** @type {Promise<void>} */ (new Promise((resolve) => net.Server.prototype.close.call(s, () => resolve()))));
  drained = Promise.all(closing)
    .then(() => Promise.allSettled(hooks.map((fn) => (async () => fn())())))
    .then((results) => results.filter((r) => r.status === 'rejected').map((r) => String(r.reason?.stack ?? r.reason)));
  return drained;
}

// After a worker is added beside this one (a scale up), keep-alive clients would stay on
// the connections they have: the new worker would get only new clients. So each connection
// this worker served before is closed once, by `Connection: close` on its next response
// (as a drain does), and its client reconnects through the daemon's round-robin, which
// spreads the connections over every worker. A connection opened since is spared, so a
// client that reconnects here is not sent away again. It lasts REBALANCE_MS: a connection
// idle longer carries no load worth moving.
const REBALANCE_MS = 10000;
/** @type {{spared: WeakSet<object>, closed: WeakSet<object>, timer: NodeJS.Timeout}|null} */
let rebalancing = null; // spared: opened since; closed: sent away once

function rebalanceClose({ response, socket }) {
  // Subscribed only while rebalancing is set (rebalance()).
  if (!socket || !rebalancing || response.headersSent || rebalancing.closed.has(socket) || rebalancing.spared.has(socket)) return;
  // A socket that has written nothing yet is serving its first request: opened since.
  if (socket.bytesWritten === 0) return void rebalancing.spared.add(socket);
  rebalancing.closed.add(socket);
  response.setHeader('Connection', 'close');
}

/** Closes each keep-alive connection once, for REBALANCE_MS (again from the start if asked again). */
function rebalance() {
  if (drained) return; // a drain closes every connection anyway
  if (rebalancing) clearTimeout(rebalancing.timer);
  else dc.subscribe('http.server.request.start', rebalanceClose);
  const timer = setTimeout(() => {
    dc.unsubscribe('http.server.request.start', rebalanceClose);
    rebalancing = null;
  }, REBALANCE_MS);
  timer.unref();
  rebalancing = { spared: new WeakSet(), closed: rebalancing?.closed ?? new WeakSet(), timer };
}

// A daemon that dies (SIGKILL, the OOM killer, a successor of `super upgrade` that ends it
// mid-drain) must not take the requests its workers are serving with it. Node's cluster
// worker exits at once when its IPC channel closes unasked (lib/internal/cluster/child.js:
// process.exit unless worker.exitedAfterDisconnect is set), which resets every connection
// it holds. This listener runs before Node's: it marks the disconnect as expected, so
// Node's does not exit, and drains as for a reload (drain() above): stop accepting,
// `Connection: close` on every response, exit once the last connection has ended, and at
// the latest after the app's drain_timeout. Under round-robin the worker gets no new
// connection anyway (the daemon held the listening sockets); under `scheduling: os` it
// closes its copy of the shared socket first. A worker stuck in a loop runs none of this:
// the next daemon of its home ends its group once that drain_timeout has passed
// (lib/master/process/group-record.js).
/**
 * @param {number} timeout  the app's drain_timeout (ms)
 */
function outliveDaemon(timeout) {
  if (!cluster.isWorker || !(timeout > 0)) return;
  process.prependOnceListener('disconnect', () => {
    const worker = cluster.worker;
    if (!worker || worker.exitedAfterDisconnect) return; // the daemon asked: Node's own exit follows
    worker.exitedAfterDisconnect = true;
    setTimeout(() => process.exit(0), timeout); // ref'd: the worker ends by then whatever else runs
    drain(timeout).then(() => process.exit(0), () => process.exit(0));
  });
}

/** Calls fn(server) for each server of the app as it listens (this file's one hook on listen()). */
function onServer(fn) {
  serverWatchers.push(fn);
}

/** The app's servers that called listen() and have not closed. */
const listening = () => servers;

module.exports = { deferTraffic, admit, onShutdown, drain, rebalance, onServer, outliveDaemon, servers: listening };
