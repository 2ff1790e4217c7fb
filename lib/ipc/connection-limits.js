// Bounds on what peers of the daemon's own listeners may hold: the local control socket,
// the TCP control listener and the metrics endpoint. The daemon is the cluster primary: in
// round-robin mode every connection to every app is accepted by it, and each needs one of
// its file descriptors. Idle or slow peers of superd's own listeners must never use those
// up, so each listener holds at most a share of the descriptor limit (RLIMIT_NOFILE, soft),
// and at most its default: together they never take more than half, the rest is the
// reserve for the apps' accepts, the workers' pipes and log files.
// A connection beyond the bound is accepted and closed at once (net.Server#maxConnections).
//
// The control listeners (websockets) split their bound in two pools, so that idle peers
// never keep out a client that completes its handshake (a local `super ls`, a remote one
// with the token): connections not yet let in as a websocket (on TCP: not authenticated)
// get a quarter of it, HANDSHAKE_MS each, and when that pool is full the oldest of them is
// closed for the newcomer; the websockets let in (admitWebsocket()) get the rest.
import fs from 'node:fs';

/** Default bound and share of the descriptor limit of each listener. */
const LISTENER_BOUNDS = {
  local: { max: 256, share: 1 / 4 },
  remote: { max: 256, share: 1 / 8 },
  metrics: { max: 64, share: 1 / 8 },
};
/** Time a peer has to send its request headers (each listener speaks HTTP first). */
const HEADERS_TIMEOUT_MS = 10_000;
/** A connection that sends nothing for this long is closed (websockets excepted: ws clears it). */
const IDLE_TIMEOUT_MS = 30_000;
const CHECK_INTERVAL_MS = 2_000;
/** Time a connection of a control listener has to become a websocket (TLS, headers, token). */
const HANDSHAKE_MS = 5_000;

let nofile;
/** The soft RLIMIT_NOFILE of this process (Linux: /proc/self/limits), or Infinity. */
function descriptorLimit() {
  if (nofile === undefined) {
    try {
      const m = /^Max open files\s+(\d+|unlimited)/m.exec(fs.readFileSync('/proc/self/limits', 'utf8'));
      nofile = m && m[1] !== 'unlimited' ? Number(m[1]) : Infinity;
    } catch {
      nofile = Infinity;
    }
  }
  return nofile;
}

/** The most connections listener `kind` may hold at once. */
function connectionBound(kind) {
  const { max, share } = LISTENER_BOUNDS[kind];
  return Math.max(4, Math.min(max, Math.floor(descriptorLimit() * share)));
}

/** http.createServer options that make the header timeout checked often enough to matter. */
export const serverOptions = { connectionsCheckingInterval: CHECK_INTERVAL_MS };

/**
 * Applies the bounds of listener `kind` to an http(s) server; returns it. With
 * `websockets`, the two pools above: call admitWebsocket(server, socket) when an upgrade request
 * is let in.
 * @param {any} server  an http(s).Server
 * @param {keyof LISTENER_BOUNDS} kind
 */
export function boundServer(server, kind, { websockets = false } = {}) {
  const bound = connectionBound(kind);
  if (websockets) pools.set(server, twoPools(server, bound));
  else server.maxConnections = bound;
  server.headersTimeout = HEADERS_TIMEOUT_MS;
  server.requestTimeout = HEADERS_TIMEOUT_MS; // a request is its headers: none has a body to wait for
  server.keepAliveTimeout = 5_000;
  server.timeout = IDLE_TIMEOUT_MS;
  return server;
}

/** server -> its two pools' admit(socket) */
const pools = new WeakMap();

/**
 * An upgrade request of `server` (bound with websockets: true) is let in: its connection
 * moves to the websockets' pool. False when that pool is full (answer 503).
 * @param {import('node:http').Server} server
 * @param {import('node:stream').Duplex} socket  as the 'upgrade' event gives it
 */
export const admitWebsocket = (server, socket) => pools.get(server)?.(socket) ?? true;

/** A TCP connection's key, the same for its TLS socket as for the raw one; a unix socket is its own key. */
const socketKey = (/** @type {any} */ socket) => (socket.remotePort ? `${socket.remoteAddress}|${socket.remotePort}` : socket);

function twoPools(server, bound) {
  const pendingCap = Math.max(2, Math.floor(bound / 4));
  const admittedCap = Math.max(2, bound - pendingCap);
  const pending = new Map(); // key -> {socket, timer}, oldest first
  let admitted = 0;
  server.on('connection', (socket) => {
    if (pending.size >= pendingCap) {
      const [key, oldest] = pending.entries().next().value;
      pending.delete(key);
      clearTimeout(oldest.timer);
      oldest.socket.destroy();
    }
    const key = socketKey(socket);
    const entry = { socket, timer: setTimeout(() => socket.destroy(), HANDSHAKE_MS).unref(), admitted: false };
    pending.set(key, entry);
    socket.once('close', () => {
      clearTimeout(entry.timer);
      if (pending.get(key) === entry) pending.delete(key);
      if (entry.admitted) admitted--;
    });
  });
  return (socket) => {
    const key = socketKey(socket);
    const entry = pending.get(key);
    if (!entry) return !socket.destroyed; // not seen pending (cannot happen): not counted
    if (admitted >= admittedCap) return false;
    pending.delete(key);
    clearTimeout(entry.timer);
    entry.admitted = true;
    admitted++;
    return true;
  };
}
