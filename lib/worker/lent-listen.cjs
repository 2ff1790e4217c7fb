'use strict';
// `scheduling: reuseport`: the daemon holds each slot's SO_REUSEPORT socket
// (lib/master/process/cluster-internals/reuse-port.js). One whose slot has no worker (a
// scale-down, a crash, a worker that closed its server) still gets its share of the port's
// new connections from the kernel, and closing it would reset those it has queued: so the
// daemon lends it to every live worker of the app (LEND_LISTEN, the socket as the message's
// handle), and each accepts from it for its own server on that port, as from its own socket,
// until the daemon takes it back (UNLEND_LISTEN: a worker of its slot holds it again) or
// that server closes (a drain, the app's own close()).
//
// Accepting for the server: Node's net.js gives a listening handle the server's
// `onconnection` and points the handle's owner symbol at the server, and `onconnection`
// reads the server from there (maxConnections, pauseOnConnect, 'connection'). A lent handle
// gets the same two from the server's own handle. Loaded at the first lend; nothing per connection.
const { servers } = require('./drain.cjs');

const lent = new Map(); // lend id -> {handle, server}
const wrapped = new WeakSet(); // server handles whose close() also closes what was lent to their server
const BACKLOG = 511; // Node's default; listen() on a listening socket only sets it again

/** LEND_LISTEN {lend, port, address}: accept from `handle` for the app's server listening on that address:port. */
function onLend(m, handle) {
  if (!handle) return;
  const onPort = [...servers()].filter((s) => s.listening && s._handle && boundTo(s)?.port === m.port);
  const server = onPort.find((s) => m.address == null || boundTo(s)?.address === m.address) ?? onPort[0];
  const own = server?._handle;
  const owner = own && Object.getOwnPropertySymbols(own).find((sym) => sym.description === 'owner_symbol');
  if (!server || !owner || typeof own.onconnection !== 'function' || lent.has(m.lend)) return void handle.close();
  handle[owner] = server;
  handle.onconnection = own.onconnection;
  if (handle.listen(BACKLOG) !== 0) return void handle.close();
  lent.set(m.lend, { handle, server });
  if (!wrapped.has(own)) {
    wrapped.add(own);
    const close = own.close;
    own.close = function closeWithLent(...args) {
      for (const [id, l] of lent) if (l.server === server) unlend(id);
      return close.apply(this, args);
    };
  }
}

/** UNLEND_LISTEN {lend}: stop accepting from that socket (the daemon keeps it open). */
function onUnlend(m) {
  unlend(m.lend);
}

function unlend(id) {
  const l = lent.get(id);
  if (!l) return;
  lent.delete(id);
  l.handle.close();
}

/** @returns {{address: string, port: number}|undefined} */
function boundTo(server) {
  try {
    return server.address() ?? undefined;
  } catch {
    return undefined;
  }
}

module.exports = { onLend, onUnlend };
