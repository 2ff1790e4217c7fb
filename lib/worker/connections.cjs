'use strict';
// The open connections of the worker's servers (drain.cjs tracks the servers): counted for
// the reports (`ls`, `describe`, Prometheus), and closed cleanly when a drain reaches its
// deadline, so long-lived ones (websockets, long polls, idle keep-alives) do not wait for
// the daemon's kill_signal. An upgraded websocket (seen through the app's own 'upgrade'
// event: a listener is put ahead of the app's only when the app has one, so a server that
// refuses upgrades keeps doing so) gets a close frame 1001 "going away" first; the rest a
// plain end. Cost per connection: a Set entry and a 'close' listener.
const open = new Set();
const websockets = new Set();
const WATCHED = Symbol('superd connections');
const CLOSE_GRACE_MS = 250; // after the close frame / FIN, how long a peer gets to close its side

function forget(set, socket) {
  set.add(socket);
  socket.once('close', () => set.delete(socket));
}

function markUpgrade(req, socket) {
  if (String(req.headers.upgrade).toLowerCase() === 'websocket') forget(websockets, socket);
}

/** Counts and tracks the connections of `server` from now on. */
function watch(server) {
  if (server[WATCHED]) return;
  server[WATCHED] = true;
  server.on('connection', (socket) => forget(open, socket));
  if (server.listenerCount('upgrade') > 0) return void server.prependListener('upgrade', markUpgrade);
  server.on('newListener', function upgradeAdded(name) {
    if (name !== 'upgrade') return;
    server.off('newListener', upgradeAdded);
    server.prependListener('upgrade', markUpgrade);
  });
}

/** {open, websockets} now. */
function counts() {
  return { open: open.size, websockets: websockets.size };
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
  for (const socket of open) {
    if (websockets.has(socket)) continue;
    socket.end();
    setTimeout(() => socket.destroy(), CLOSE_GRACE_MS).unref();
  }
}

module.exports = { watch, counts, closeAll };
