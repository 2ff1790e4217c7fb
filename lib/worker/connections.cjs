'use strict';
// The open connections of the worker's servers (drain.cjs tracks the servers): counted for
// the reports (`ls`, `describe`, Prometheus), and closed cleanly when a drain reaches its
// deadline, so long-lived ones (websockets, long polls, idle keep-alives) do not wait for
// the daemon's kill_signal. An upgraded websocket (seen through the app's own 'upgrade'
// event: a listener is put ahead of the app's only when the app has one, so a server that
// refuses upgrades keeps doing so) gets a close frame 1001 "going away" first; the rest a
// plain end.
//
// Cost per connection of an HTTP server: nothing of ours (docs/measurements.md, issue 42).
// The count is the one net.Server keeps itself (`_connections`: each socket it accepted,
// until the socket is destroyed, upgraded ones included), and an http(s) server's sockets
// are found when a drain needs them, in the list Node keeps of them for
// closeIdleConnections() (its parsers, each with its socket). A socket that leaves that list
// while still open (an upgrade, a CONNECT tunnel) is tracked from then on, as is each
// socket of any other server (plain net, tls, http2): a Set entry and a shared 'close'
// listener.
const servers = new Set(); // watched, not closed (or closed with connections still open)
const tracked = new Set(); // sockets outside Node's lists: of a server without one, or upgraded
const websockets = new Set();
const WATCHED = Symbol('superd connections');
const CLOSE_GRACE_MS = 250; // after the close frame / FIN, how long a peer gets to close its side
// The events after which an http server hands the socket over (and drops it from its list).
const HANDED_OVER = ['upgrade', 'connect'];
const LIST = 'http.server.connections'; // the description of Node's symbol for the list

function forgetTracked() {
  tracked.delete(this);
}
function forgetWebsocket() {
  websockets.delete(this);
}

function track(socket) {
  tracked.add(socket);
  socket.on('close', forgetTracked);
}

function handedOver(req, socket) {
  track(socket);
  if (String(req.headers.upgrade).toLowerCase() === 'websocket') {
    websockets.add(socket);
    socket.on('close', forgetWebsocket);
  }
}

/** @type {symbol|null|undefined} Node's key of an http server's connection list (null: none found) */
let listKey;
/** An http(s) server's list of its connections (ConnectionsList: all() gives parsers), or null. */
function connectionList(server) {
  if (listKey === undefined) {
    const key = Object.getOwnPropertySymbols(server).find((s) => s.description === LIST);
    if (!key) return null; // not yet listening, or not an http server: ask again next time
    listKey = key;
  }
  const list = listKey ? server[listKey] : null;
  return list && typeof list.all === 'function' ? list : null;
}

/** 'listening' of an http(s) server: without Node's list (another Node), its sockets are tracked. */
function chooseTracking() {
  if (!connectionList(this)) this.on('connection', track);
}

function unwatch() {
  servers.delete(this);
}

/** Counts and tracks the connections of `server` from now on. */
function watch(server) {
  servers.add(server);
  if (server[WATCHED]) return;
  server[WATCHED] = true;
  server.on('close', unwatch);
  // Node makes an http(s) server's list when it starts listening, before our listener runs.
  if (typeof server.closeIdleConnections === 'function') server.once('listening', chooseTracking);
  else server.on('connection', track);
  // Ours is on an event only while the app listens to it too: with no listener of the app's,
  // Node refuses (or, for an upgrade on Node 24, serves as a plain request) what it would be.
  const hooked = new Set();
  const hook = (event) => {
    hooked.add(event); // first: prependListener emits 'newListener' too
    server.prependListener(event, handedOver);
  };
  for (const event of HANDED_OVER) if (server.listenerCount(event) > 0) hook(event);
  server.on('newListener', (name) => {
    if (HANDED_OVER.includes(name) && !hooked.has(name)) hook(name);
  });
  server.on('removeListener', (name, listener) => {
    if (!hooked.has(name)) return;
    if (listener === handedOver) hooked.delete(name); // ours went (below, or removeAllListeners())
    else if (server.listenerCount(name) === 1) server.off(name, handedOver); // the app's last one went
  });
}

/** {open, websockets} now. */
function counts() {
  let open = 0;
  for (const server of servers) open += server._connections > 0 ? server._connections : 0;
  // Node takes a socket off _connections when it is destroyed, and our sets at its 'close',
  // a moment later: a destroyed one no longer counts here either (else a report could show
  // more websockets than open connections). Once per report, not per connection.
  let live = 0;
  for (const ws of websockets) if (!ws.destroyed) live++;
  return { open, websockets: live };
}

/** Every open socket of the watched servers. */
function openSockets() {
  const sockets = new Set(tracked);
  for (const server of servers) {
    const list = connectionList(server);
    if (!list) continue;
    for (const parser of list.all()) if (parser.socket) sockets.add(parser.socket);
  }
  return sockets;
}

// A server's close frame: FIN + opcode 8, unmasked, payload = code 1001 + reason.
const GOING_AWAY = (() => {
  const reason = Buffer.from('going away');
  return Buffer.concat([Buffer.from([0x88, 2 + reason.length, 0x03, 0xe9]), reason]);
})();

/** Closes every open connection cleanly: websockets with 1001 "going away", the rest with a FIN. */
function closeAll() {
  for (const ws of websockets) {
    if (ws.writable) ws.end(GOING_AWAY);
    setTimeout(() => ws.destroy(), CLOSE_GRACE_MS).unref();
  }
  for (const socket of openSockets()) {
    if (websockets.has(socket)) continue;
    socket.end();
    setTimeout(() => socket.destroy(), CLOSE_GRACE_MS).unref();
  }
}

module.exports = { watch, counts, closeAll };
