// The TCP control listener (control.listen; off by default). It only decides who gets in;
// the connections it lets in are served by lib/ipc/server.js exactly like the unix socket's.
//
// Every websocket upgrade request passes, in this order, before any websocket frame:
//   1. Origin: a request with an Origin header (a browser) must come from control.origins,
//      else 403. Stops a web page the operator visits from driving the daemon
//      (cross-site websocket hijacking). Requests without Origin (the CLI) pass.
//   2. Lockout: an address with too many recent failures gets 429 (lib/ipc/auth-limiter.js).
//   3. Token: `Authorization: Bearer <token>` must match the token of $SUPER_HOME/token as
//      read when the listener opened (kept in memory: a file planted there later is never
//      read; `super token --rotate` hands the daemon its new token, setToken), compared in
//      constant time; else 401, counted as a failure and logged (the address, never the token).
// A plain HTTP request gets 426. TLS (control.tls) makes it https/wss.
import http from 'node:http';
import https from 'node:https';
import { parseListen } from '../config/listen-address.js';
import { ensureToken, tokenMatches } from './token.js';
import { AuthLimiter } from './auth-limiter.js';
import { refuseHttp, refuse } from './refuse-http.js';
import { SuperError } from '../errors.js';
import { boundServer, serverOptions, admitWebsocket } from './connection-limits.js';

/**
 * @typedef {object} RemoteOptions
 * @property {string} listen  host:port
 * @property {{cert: string, key: string}|null} tls  PEM contents (not paths)
 * @property {string[]} origins  allowed Origin header values
 * @property {string} tokenFile
 * @property {(req, socket, head, from: {remote: string}) => void} accept  lib/ipc/server.js
 * @property {import('../logs/json-logger.js').JsonLogger} log
 * @property {AuthLimiter} [limiter]
 * @property {number|null} [fd]  a listening socket inherited (upgrade, systemd) instead of a new one
 */

/**
 * Listens; resolves with {address, close()}. Rejects with SuperError E_CONTROL_LISTEN when
 * the address cannot be bound (nothing is left open).
 * @param {RemoteOptions} o
 */
export async function startRemoteListener({ listen, tls, origins, tokenFile, accept, log, limiter = new AuthLimiter(), fd = null }) {
  let expected = await ensureToken(tokenFile);
  // Bounds on what unauthenticated peers may hold: sockets, and time to send their headers.
  // Unauthenticated peers get a few slots, closed after a few seconds or for a newcomer
  // (connection-limits.js): they never keep out a client with the token.
  const server = boundServer(tls ? https.createServer({ ...serverOptions, cert: tls.cert, key: tls.key }, refuseHttp) : http.createServer(serverOptions, refuseHttp), 'remote', { websockets: true });
  const allowed = new Set(origins);

  server.on('upgrade', (req, socket, head) => {
    const addr = socket.remoteAddress ?? 'unknown';
    socket.on('error', () => {}); // a peer gone mid-check is not an error of the daemon
    admit(req, addr).then((refusal) => {
      if (socket.destroyed) return;
      if (refusal) refuse(socket, refusal);
      else if (!admitWebsocket(server, socket)) refuse(socket, { status: 503, text: 'too many control connections; retry later' });
      else accept(req, socket, head, { remote: addr });
    }, (err) => {
      log.error({ err, remote: addr }, 'control listener: authentication check failed');
      refuse(socket, { status: 500, text: 'the daemon could not check the token; see its log' });
    });
  });

  /** null to let the request in, else {status, text, headers?}. */
  async function admit(req, addr) {
    const origin = req.headers.origin;
    if (origin !== undefined && !allowed.has(origin)) {
      log.warn({ remote: addr, origin: String(origin).slice(0, 200) }, 'control connection refused: Origin not in control.origins');
      return { status: 403, text: 'this Origin is not allowed (control.origins)' };
    }
    // Checked in the same tick as the count, so a parallel burst of guesses gets no more
    // than the limiter's few.
    const lock = limiter.locked(addr);
    if (lock.locked) return lockedOut(addr, lock);
    const given = bearer(req.headers.authorization);
    if (given !== null && tokenMatches(given, expected)) {
      limiter.succeed(addr);
      return null;
    }
    const lockedNow = limiter.fail(addr);
    log.warn({ remote: addr, reason: given === null ? 'no bearer token' : 'wrong token', locked_out: lockedNow }, 'control connection refused: authentication failed');
    return { status: 401, text: 'a valid token is required (Authorization: Bearer <token>)', headers: { 'www-authenticate': 'Bearer' } };
  }

  function lockedOut(addr, lock) {
    if (lock.first) log.warn({ remote: addr, retry_after_ms: lock.retryAfterMs }, 'control connection refused: too many failed authentications, locked out');
    return { status: 429, text: 'too many failed authentications; try again later', headers: { 'retry-after': String(Math.ceil(lock.retryAfterMs / 1000)) } };
  }

  const { host, port } = parseListen(listen);
  await new Promise((resolve, reject) => {
    server.once('error', (err) => reject(new SuperError('E_CONTROL_LISTEN', `the control listener cannot listen on ${listen} (${err.code ?? err.message}); nothing was started. Free the port or change control.listen`)));
    // fd: the same socket, inherited from the daemon this one replaced (`super upgrade`).
    if (fd !== null) server.listen({ fd }, resolve);
    else server.listen(port, host, resolve);
  });
  server.removeAllListeners('error');
  server.on('error', (err) => log.error({ err }, 'control listener error'));
  server.unref(); // the daemon's life is not held by its listeners
  log.info({ listen, tls: Boolean(tls), origins }, 'TCP control listener open');
  return {
    address: server.address(),
    limiter,
    /** The token in force. */
    token: () => expected,
    /** The token from now on (`super token --rotate`); connections already in stay. */
    setToken(token) {
      expected = token;
    },
    close: () => /** @type {Promise<void>} */ (new Promise((resolve) => {
      server.close(() => resolve());
      server.closeAllConnections?.();
    })),
  };
}

/** The token of an `Authorization: Bearer <token>` header, or null. */
function bearer(header) {
  if (typeof header !== 'string') return null;
  const m = /^Bearer +(\S+) *$/i.exec(header);
  return m ? m[1] : null;
}

