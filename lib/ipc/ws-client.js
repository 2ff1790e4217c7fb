// A minimal websocket client for the CLI, over a unix socket or TCP.
// Why not `ws`: loading it costs 20-40 ms per CLI call, and `super ls` must cost little
// more than `node -e 0`. The daemon, which faces untrusted clients, keeps using `ws`.
// Scope: text frames (masked, as RFC 6455 requires of clients), ping/pong, close.
import net from 'node:net';
import { EventEmitter } from 'node:events';

const OP = { CONT: 0, TEXT: 1, BIN: 2, CLOSE: 8, PING: 9, PONG: 10 };

// What a server may make this client hold (a daemon of another host is untrusted): its
// response head, one message (the sum of its frames, the answer of `ls` of thousands of
// workers fits), and the frames of one message. Past any of them: closed with 1009.
const MAX_HEAD = 16 * 1024;
const MAX_MESSAGE = 32 * 1024 * 1024;
const MAX_FRAGMENTS = 4096;

// The handshake key and the frame masks only have to differ per connection and frame
// (RFC 6455 wants masks unpredictable to defeat caching proxies, and none sits on a unix
// socket or loopback). Math.random spares the CLI loading node:crypto (~4 ms per call).
function nonce(n) {
  const b = Buffer.allocUnsafe(n);
  for (let i = 0; i < n; i++) b[i] = (Math.random() * 256) | 0;
  return b;
}

/**
 * @typedef {EventEmitter & {send(text: string): boolean, sendRaw(buffer: Buffer): boolean, close(code?: number): void,
 *   destroy(): void, pause(): void, resume(): void}} WebSocketConnection
 */

/**
 * Opens a websocket. Emits 'open', 'message' (string), 'close' (code, reason), 'error'.
 * A refused upgrade is an 'error' whose `status` is the HTTP status (401, 403, 429, ...).
 * @param {{socketPath?: string, host?: string, port?: number, path?: string, headers?: object,
 *   hostHeader?: string, socket?: import('node:net').Socket, connectEvent?: string}} where
 *   hostHeader: the Host header (default: host); socket: an already-connecting socket (a
 *   node:tls one for wss), which emits `connectEvent` ('secureConnect' for TLS) once it can
 *   carry the handshake
 */
export function connectWebSocket(where) {
  const ee = /** @type {WebSocketConnection} */ (new EventEmitter());
  // Without a socket or a socketPath, `where` names a port (lib/ctl/remote-target.js).
  const sock = where.socket ?? (where.socketPath ? net.connect(where.socketPath) : net.connect(/** @type {number} */ (where.port), where.host));
  const key = nonce(16).toString('base64');
  let buf = Buffer.alloc(0);
  // the bytes of a frame still incomplete, kept aside until it is whole (joined once, not at every chunk)
  let waiting = [];
  let waitingBytes = 0;
  let need = 0;
  let upgraded = false;
  let fragments = [];
  let fragmentBytes = 0;
  let closed = false;

  sock.setNoDelay(true);
  sock.on(where.connectEvent ?? 'connect', () => {
    const extra = Object.entries(where.headers ?? {}).map(([k, v]) => `${k}: ${v}\r\n`).join('');
    sock.write(`GET ${where.path ?? '/'} HTTP/1.1\r\nHost: ${where.hostHeader ?? where.host ?? 'localhost'}\r\nUpgrade: websocket\r\n` +
      `Connection: Upgrade\r\nSec-WebSocket-Key: ${key}\r\nSec-WebSocket-Version: 13\r\n${extra}\r\n`);
  });
  sock.on('data', (chunk) => {
    if (need && buf.length + waitingBytes + chunk.length < need) {
      waiting.push(chunk);
      waitingBytes += chunk.length;
      return;
    }
    buf = buf.length || waiting.length ? Buffer.concat([buf, ...waiting, chunk]) : chunk;
    waiting = [];
    waitingBytes = 0;
    need = 0;
    if (!upgraded) {
      const end = buf.indexOf('\r\n\r\n');
      if (end < 0) {
        if (buf.length > MAX_HEAD) fail(new Error(`the server's response head exceeds ${MAX_HEAD} bytes`));
        return;
      }
      const head = buf.subarray(0, end).toString('latin1');
      if (!/^HTTP\/1\.1 101/.test(head)) {
        const err = Object.assign(new Error(`websocket upgrade refused: ${head.split('\r\n')[0]}`), {
          status: Number(/^HTTP\/1\.[01] (\d{3})/.exec(head)?.[1]) || null,
        });
        fail(err);
        return;
      }
      upgraded = true;
      buf = buf.subarray(end + 4);
      ee.emit('open');
    }
    parseFrames();
  });
  sock.on('error', fail);
  sock.on('close', () => finish(1006, ''));

  function fail(err) {
    if (closed) return;
    ee.emit('error', err);
    sock.destroy();
  }

  /** The server sent more than this client holds: 1009, as a server would answer it. */
  function tooBig(reason) {
    const p = Buffer.alloc(2);
    p.writeUInt16BE(1009);
    send(OP.CLOSE, p);
    sock.destroy();
    finish(1009, reason);
  }

  function finish(code, reason) {
    if (closed) return;
    closed = true;
    ee.emit('close', code, reason);
  }

  function parseFrames() {
    for (;;) {
      if (buf.length < 2) return;
      const fin = (buf[0] & 0x80) !== 0;
      const op = buf[0] & 0x0f;
      let len = buf[1] & 0x7f;
      let off = 2;
      if (len === 126) {
        if (buf.length < 4) return;
        len = buf.readUInt16BE(2);
        off = 4;
      } else if (len === 127) {
        if (buf.length < 10) return;
        len = Number(buf.readBigUInt64BE(2));
        off = 10;
      }
      if (buf[1] & 0x80) off += 4; // servers do not mask, but tolerate it
      if (len > MAX_MESSAGE - fragmentBytes) return tooBig(`a message from the server over the ${MAX_MESSAGE}-byte limit`);
      if (buf.length < off + len) {
        need = off + len;
        return;
      }
      const payload = buf.subarray(off, off + len);
      buf = buf.subarray(off + len);
      if (op === OP.PING) send(OP.PONG, payload);
      else if (op === OP.CLOSE) {
        const code = payload.length >= 2 ? payload.readUInt16BE(0) : 1005;
        const reason = payload.subarray(2).toString('utf8');
        send(OP.CLOSE, payload.subarray(0, 2));
        sock.end();
        finish(code, reason);
        return;
      } else if (op === OP.TEXT || op === OP.CONT) {
        fragments.push(payload);
        fragmentBytes += payload.length;
        if (fin) {
          const text = Buffer.concat(fragments).toString('utf8');
          fragments = [];
          fragmentBytes = 0;
          ee.emit('message', text);
          if (closed) return;
        } else if (fragments.length > MAX_FRAGMENTS) return tooBig(`a message from the server in more than ${MAX_FRAGMENTS} frames`);
      }
    }
  }

  function send(op, payload) {
    if (closed || sock.destroyed) return false;
    const len = payload.length;
    const head = len < 126 ? Buffer.alloc(6) : len < 65536 ? Buffer.alloc(8) : Buffer.alloc(14);
    head[0] = 0x80 | op;
    let off = 2;
    if (len < 126) head[1] = 0x80 | len;
    else if (len < 65536) { head[1] = 0x80 | 126; head.writeUInt16BE(len, 2); off = 4; }
    else { head[1] = 0x80 | 127; head.writeBigUInt64BE(BigInt(len), 2); off = 10; }
    const mask = nonce(4);
    mask.copy(head, off);
    const masked = Buffer.allocUnsafe(len);
    for (let i = 0; i < len; i++) masked[i] = payload[i] ^ mask[i & 3];
    sock.write(head);
    return sock.write(masked);
  }

  ee.send = (text) => send(OP.TEXT, Buffer.from(text, 'utf8'));
  /** Sends a raw, possibly malformed, frame payload as text (for tests of hostile input). */
  ee.sendRaw = (buffer) => send(OP.TEXT, buffer);
  ee.close = (code = 1000) => {
    if (closed) return;
    const p = Buffer.alloc(2);
    p.writeUInt16BE(code);
    send(OP.CLOSE, p);
    sock.end();
    setTimeout(() => sock.destroy(), 200).unref();
  };
  ee.destroy = () => sock.destroy();
  // Flow control for event streams (super logs -f): a paused client stops reading, so the
  // daemon sees its own send buffer fill up and skips instead of queueing.
  ee.pause = () => sock.pause();
  ee.resume = () => sock.resume();
  return ee;
}
