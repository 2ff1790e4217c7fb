'use strict';
// The worker's side of `sticky: sid` / `sticky: cookie` (docs/realtime.md), loaded by the
// agent only for such apps. The daemon reads the first request's head of each connection to
// choose a worker (lib/master/process/cluster-internals/sticky-router.js), so:
//   - the bytes it read come first (STICKY_PREFIX, keyed by the client's address:port), and
//     are put back in front of the socket when the app's server gets it ('connection', a
//     listener ahead of the app's), as @socket.io/sticky's setupWorker does, with no change
//     to the app;
//   - an engine.io handshake's answer (a request with EIO= and no sid=, answered `0{"sid":...`)
//     names the session this worker made: the daemon is told (STICKY_SESSION), so the
//     session's next requests come here.
const http = require('node:http');

const MAX_PENDING = 1024; // prefixes of connections not arrived (handed elsewhere at last): the oldest go
const SID_IN_OPEN = /^0\{"sid":"([\w-]{1,64})"/;
const HOOKED = Symbol('superd sticky');

/** address:port -> the bytes the daemon read from that connection */
const pending = new Map();

/** @param {(sid: string) => void} announce  tells the daemon this worker made session sid */
function installSticky(announce) {
  require('./drain.cjs').onServer((server) => {
    if (server[HOOKED]) return; // a server listening again after a close
    server[HOOKED] = true;
    server.prependListener('connection', putBack);
  });

  const end = http.ServerResponse.prototype.end;
  http.ServerResponse.prototype.end = function endSticky(chunk, ...rest) {
    const url = this.req?.url;
    if (chunk && typeof url === 'string' && url.includes('EIO=') && !url.includes('sid=')) {
      const text = typeof chunk === 'string' ? chunk.slice(0, 100) : Buffer.isBuffer(chunk) ? chunk.toString('latin1', 0, 100) : '';
      const m = SID_IN_OPEN.exec(text);
      if (m) announce(m[1]);
    }
    return end.call(this, chunk, ...rest);
  };
}

/** The daemon's message: the first bytes of the connection from `peer`, about to arrive. */
function onPrefix(m) {
  if (typeof m.peer !== 'string' || typeof m.data !== 'string') return;
  if (pending.size >= MAX_PENDING) pending.delete(pending.keys().next().value);
  pending.set(m.peer, Buffer.from(m.data, 'base64'));
}

function putBack(socket) {
  if (pending.size === 0) return;
  const peer = `${socket.remoteAddress}:${socket.remotePort}`;
  const head = pending.get(peer);
  if (!head) return;
  pending.delete(peer);
  socket.unshift(head);
}

module.exports = { installSticky, onPrefix };
