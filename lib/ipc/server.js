// The daemon's side of the control channel: a `ws` server on a unix socket (0600 in a
// 0700 directory) and, when control.listen asks for it, on a TCP listener that lets a
// connection in only with the token (lib/ipc/remote-listener.js). Both listeners hand
// their upgraded requests to the same `accept`, so every connection is served by the
// same code. Each frame is checked by protocol.parseRequest before any handler runs;
// handler errors become error replies, never daemon crashes.
import fs from 'node:fs';
import net from 'node:net';
import http from 'node:http';
import { createRequire } from 'node:module';
import { MAX_FRAME, PROTOCOL, parseRequest, LOCAL_ONLY_OPS } from './protocol.js';
import { SuperError } from '../errors.js';
import { Connection } from './connection.js';
import { refuseHttp, refuse } from './refuse-http.js';
import { boundServer, serverOptions, admitWebsocket } from './connection-limits.js';

// ws is CommonJS: require()d, as importing it from ESM would load Node's CommonJS export
// scanner, ~4 MB of the daemon's memory for as long as it runs.
const { WebSocketServer } = createRequire(import.meta.url)('ws');

/**
 * @param {object} o
 * @param {string} o.socketPath
 * @param {Record<string, (args: object, conn: Connection, progress: (data: object) => void) => Promise<any>|any>} o.handlers  op -> handler
 * @param {object} o.hello  fields sent in the hello frame
 * @param {import('../logs/json-logger.js').JsonLogger} o.log
 */
export async function startControlServer({ socketPath, handlers, hello, log }) {
  await removeStaleSocket(socketPath);
  const wss = new WebSocketServer({ noServer: true, maxPayload: MAX_FRAME, perMessageDeflate: false });
  const conns = new Set();
  let remote = null; // the TCP listener, once opened

  /**
   * Takes an HTTP upgrade request that a listener let in into the control channel.
   * @param {{remote?: string}} [from]  the remote address, for connections over TCP
   */
  const accept = (req, socket, head, from = {}) => {
    wss.handleUpgrade(req, socket, head, (ws) => onConnection(ws, from.remote ?? null));
  };

  function onConnection(ws, remoteAddress) {
    const conn = new Connection(ws, remoteAddress, (reason) => log.warn({ remote: remoteAddress, reason }, 'control connection cut: the client reads too slowly'));
    conns.add(conn);
    ws.on('close', () => conns.delete(conn));
    // ws reports protocol violations (oversized frames: 1009, bad UTF-8: 1007) here
    // and closes the socket itself; nothing to do but log.
    ws.on('error', (err) => log.debug({ err: err.message, code: err.code }, 'control connection error'));
    ws.on('message', (data, isBinary) => {
      // Each request is answered once, by conn.reply; what a client leaves unanswered or
      // unread is bounded there.
      if (!conn.accept()) return;
      if (isBinary) {
        conn.reply({ id: null, ok: false, error: { code: 'E_BAD_REQUEST', message: 'binary frames are not accepted; send JSON text' } });
        return;
      }
      handle(conn, data.toString('utf8'));
    });
    conn.send({ hello: { protocol: PROTOCOL, ...hello } });
  }

  async function handle(conn, text) {
    const req = parseRequest(text);
    if (req.error) {
      conn.reply({ id: req.id, ok: false, error: req.error });
      return;
    }
    if (conn.remote && LOCAL_ONLY_OPS.includes(req.op)) {
      conn.reply({ id: req.id, ok: false, error: { code: 'E_LOCAL_ONLY', message: `${req.op} is only accepted on the local unix socket (it reads files and the environment of the client's machine); run it on the daemon's host` } });
      return;
    }
    let reply;
    try {
      const progress = (data) => conn.send({ id: req.id, progress: data });
      const data = await handlers[req.op](req.args, conn, progress);
      reply = { id: req.id, ok: true, data: data ?? {} };
    } catch (err) {
      if (!(err instanceof SuperError)) log.error({ err, op: req.op }, 'control handler failed');
      const wire = err instanceof SuperError ? err.toJSON() : { code: 'E_INTERNAL', message: `${req.op} failed: ${err?.message ?? err}` };
      reply = { id: req.id, ok: false, error: wire };
    }
    conn.reply(reply);
  }

  // Bounded like every listener of the daemon (lib/ipc/connection-limits.js).
  const httpServer = boundServer(http.createServer(serverOptions, refuseHttp), 'local', { websockets: true });
  httpServer.on('upgrade', (req, socket, head) => {
    if (admitWebsocket(httpServer, socket)) accept(req, socket, head);
    else refuse(socket, { status: 503, text: 'too many control connections; retry later' });
  });
  await /** @type {Promise<void>} */ (new Promise((resolve, reject) => {
    // EADDRINUSE: another daemon bound the socket between our stale check and listen.
    const fail = (err) => reject(err.code === 'EADDRINUSE' ? new SuperError('E_DAEMON_RUNNING', `a daemon already answers on ${socketPath}`) : err);
    httpServer.once('error', fail);
    httpServer.listen(socketPath, () => {
      httpServer.off('error', fail);
      resolve();
    });
  }));
  fs.chmodSync(socketPath, 0o600);

  return {
    /** Sends an event to every connection subscribed to `topic`, encoded once for all of them. */
    broadcast(topic, data) {
      let text = null;
      const frame = () => (text ??= JSON.stringify({ event: topic, data }));
      for (const conn of conns) conn.publish(topic, frame);
    },
    /** True when some connection is subscribed to `topic` (so events are worth building). */
    subscribed(topic) {
      for (const conn of conns) if (conn.subscribed(topic)) return true;
      return false;
    },
    /** The TCP listener (lib/ipc/remote-listener.js), null until openRemote. */
    get remote() {
      return remote;
    },
    /**
     * Opens the TCP listener. Rejects with a SuperError (nothing opened) when it cannot.
     * @param {Omit<import('./remote-listener.js').RemoteOptions, 'accept'|'log'>} opts
     */
    async openRemote(opts) {
      if (remote) throw new Error('the TCP control listener is already open');
      const { startRemoteListener } = await import('./remote-listener.js');
      remote = await startRemoteListener({ ...opts, log, accept });
      return remote;
    },
    close() {
      for (const conn of conns) conn.terminate();
      wss.close();
      const closing = [/** @type {Promise<void>} */ (new Promise((resolve) => httpServer.close(() => resolve())))];
      if (remote) closing.push(remote.close());
      return Promise.all(closing);
    },
  };
}

/** A socket file left by a killed daemon refuses connections: remove it. A live one is a running daemon. */
async function removeStaleSocket(socketPath) {
  if (!fs.existsSync(socketPath)) return;
  const alive = await new Promise((resolve) => {
    const s = net.connect(socketPath);
    s.once('connect', () => {
      s.destroy();
      resolve(true);
    });
    s.once('error', () => resolve(false));
  });
  if (alive) throw new SuperError('E_DAEMON_RUNNING', `a daemon already answers on ${socketPath}`);
  fs.unlinkSync(socketPath);
}
