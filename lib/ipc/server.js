// The daemon's side of the control channel: a `ws` server on a unix socket (0600 in a
// 0700 directory). Each frame is checked by protocol.parseRequest before any handler
// runs; handler errors become error replies, never daemon crashes.
import fs from 'node:fs';
import net from 'node:net';
import http from 'node:http';
import { WebSocketServer } from 'ws';
import { MAX_FRAME, PROTOCOL, parseRequest } from './protocol.js';
import { SuperError } from '../errors.js';

// An event stream whose client reads slower than events come is cut, not buffered.
const MAX_BUFFERED = 4 * 1024 * 1024;

/**
 * @param {object} o
 * @param {string} o.socketPath
 * @param {Record<string, (args: object, conn: object) => Promise<any>|any>} o.handlers  op -> handler
 * @param {object} o.hello  fields sent in the hello frame
 * @param {import('pino').Logger} o.log
 */
export async function startControlServer({ socketPath, handlers, hello, log }) {
  await removeStaleSocket(socketPath);
  const httpServer = http.createServer((req, res) => {
    res.writeHead(426, { 'content-type': 'text/plain' }).end('superd control channel: websocket only\n');
  });
  const wss = new WebSocketServer({ server: httpServer, maxPayload: MAX_FRAME, perMessageDeflate: false });
  const conns = new Set();

  wss.on('connection', (ws) => {
    const conn = { ws, topics: new Set() };
    conns.add(conn);
    ws.on('close', () => conns.delete(conn));
    // ws reports protocol violations (oversized frames: 1009, bad UTF-8: 1007) here
    // and closes the socket itself; nothing to do but log.
    ws.on('error', (err) => log.debug({ err: err.message, code: err.code }, 'control connection error'));
    ws.on('message', (data, isBinary) => {
      if (isBinary) {
        reply(ws, { id: null, ok: false, error: { code: 'E_BAD_REQUEST', message: 'binary frames are not accepted; send JSON text' } });
        return;
      }
      handle(conn, data.toString('utf8'));
    });
    send(ws, { hello: { protocol: PROTOCOL, ...hello } });
  });

  async function handle(conn, text) {
    const req = parseRequest(text);
    if (req.error) {
      reply(conn.ws, { id: req.id, ok: false, error: req.error });
      return;
    }
    try {
      const progress = (data) => send(conn.ws, { id: req.id, progress: data });
      const data = await handlers[req.op](req.args, conn, progress);
      reply(conn.ws, { id: req.id, ok: true, data: data ?? {} });
    } catch (err) {
      if (!(err instanceof SuperError)) log.error({ err, op: req.op }, 'control handler failed');
      const wire = err instanceof SuperError ? err.toJSON() : { code: 'E_INTERNAL', message: `${req.op} failed: ${err?.message ?? err}` };
      reply(conn.ws, { id: req.id, ok: false, error: wire });
    }
  }

  await new Promise((resolve, reject) => {
    httpServer.once('error', reject);
    httpServer.listen(socketPath, () => {
      httpServer.off('error', reject);
      resolve();
    });
  });
  fs.chmodSync(socketPath, 0o600);

  return {
    /** Sends an event to every connection subscribed to `topic`. */
    broadcast(topic, data) {
      for (const conn of conns) {
        if (!conn.topics.has(topic)) continue;
        if (conn.ws.bufferedAmount > MAX_BUFFERED) {
          conn.ws.close(1008, 'event stream too slow');
          continue;
        }
        send(conn.ws, { event: topic, data });
      }
    },
    /** True when some connection is subscribed to `topic` (so events are worth building). */
    subscribed(topic) {
      for (const conn of conns) if (conn.topics.has(topic)) return true;
      return false;
    },
    close() {
      for (const conn of conns) conn.ws.terminate();
      wss.close();
      return new Promise((resolve) => httpServer.close(() => resolve()));
    },
  };
}

function send(ws, obj) {
  if (ws.readyState === ws.OPEN) ws.send(JSON.stringify(obj));
}

const reply = send;

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
