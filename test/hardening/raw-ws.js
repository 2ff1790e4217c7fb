// A websocket client for hostile-input tests that can write any frame, well formed or
// not (reserved bits, unmasked, bad opcodes, lying length headers), and that reports
// every frame the daemon sends and how the connection ended. lib/ipc/ws-client.js only
// writes correct frames; this one exists to break the rules on purpose.
import net from 'node:net';
import crypto from 'node:crypto';
import { EventEmitter } from 'node:events';

export const OP = { CONT: 0, TEXT: 1, BIN: 2, CLOSE: 8, PING: 9, PONG: 10 };

/**
 * One frame as bytes.
 * @param {object} f
 * @param {number} f.op  opcode (any 4-bit value)
 * @param {Buffer} [f.payload]
 * @param {boolean} [f.fin=true]
 * @param {number} [f.rsv=0]  the three reserved bits (0-7)
 * @param {boolean} [f.mask=true]  clients must mask; false sends an unmasked frame
 * @param {number|bigint} [f.length]  the length header to claim (default: the payload's)
 */
export function frame({ op, payload = Buffer.alloc(0), fin = true, rsv = 0, mask = true, length }) {
  const len = BigInt(length ?? payload.length);
  const head = [((fin ? 0x80 : 0) | ((rsv & 7) << 4) | (op & 0x0f))];
  const m = mask ? 0x80 : 0;
  let ext = Buffer.alloc(0);
  if (len < 126n) head.push(m | Number(len));
  else if (len < 65536n) {
    head.push(m | 126);
    ext = Buffer.alloc(2);
    ext.writeUInt16BE(Number(len));
  } else {
    head.push(m | 127);
    ext = Buffer.alloc(8);
    ext.writeBigUInt64BE(len);
  }
  if (!mask) return Buffer.concat([Buffer.from(head), ext, payload]);
  const key = crypto.randomBytes(4);
  const body = Buffer.allocUnsafe(payload.length);
  for (let i = 0; i < payload.length; i++) body[i] = payload[i] ^ key[i & 3];
  return Buffer.concat([Buffer.from(head), ext, key, body]);
}

/**
 * @typedef {EventEmitter & {ended: Promise<{code: number|null, reason: string|null, byDaemon: boolean}>, write: (b: Buffer) => boolean,
 *   text: (s: string|Buffer) => boolean, binary: (b: Buffer) => boolean, pause: () => void, resume: () => void,
 *   destroy: () => void}} RawConnection
 */

/**
 * Connects and upgrades. Resolves with an emitter: 'message' (parsed JSON of each text
 * frame), 'end' ({code, byDaemon}) once the socket is gone, plus
 *   write(buf)        raw bytes
 *   text(str|Buffer)  one correct masked text frame
 *   binary(buf)       one correct masked binary frame
 *   destroy()         vanish without a close frame
 *   pause(), resume() stop / restart reading what the daemon sends
 *   ended             a promise of the 'end' value (reason: the close frame's text)
 */
export function rawConnect(socketPath) {
  return new Promise((resolve, reject) => {
    const sock = net.connect(socketPath);
    const ee = /** @type {RawConnection} */ (new EventEmitter());
    let buf = Buffer.alloc(0);
    let upgraded = false;
    let closeCode = null; // from the daemon's close frame
    let closeReason = null;
    let destroyedByUs = false;
    ee.ended = new Promise((r) => ee.once('end', r));
    sock.on('connect', () => {
      sock.write('GET / HTTP/1.1\r\nHost: localhost\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n' +
        `Sec-WebSocket-Key: ${crypto.randomBytes(16).toString('base64')}\r\nSec-WebSocket-Version: 13\r\n\r\n`);
    });
    sock.on('error', (err) => {
      if (!upgraded) reject(err);
    });
    sock.on('close', () => {
      if (!upgraded) reject(new Error('closed before the upgrade'));
      ee.emit('end', { code: closeCode, reason: closeReason, byDaemon: !destroyedByUs });
    });
    sock.on('data', (chunk) => {
      buf = Buffer.concat([buf, chunk]);
      if (!upgraded) {
        const end = buf.indexOf('\r\n\r\n');
        if (end < 0) return;
        const status = buf.subarray(0, end).toString('latin1').split('\r\n')[0];
        if (!/^HTTP\/1\.1 101/.test(status)) {
          reject(new Error(`upgrade refused: ${status}`));
          sock.destroy();
          return;
        }
        upgraded = true;
        buf = buf.subarray(end + 4);
        resolve(ee);
      }
      parse();
    });

    function parse() {
      for (;;) {
        if (buf.length < 2) return;
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
        if (buf.length < off + len) return;
        const payload = buf.subarray(off, off + len);
        buf = buf.subarray(off + len);
        if (op === OP.TEXT) ee.emit('message', JSON.parse(payload.toString('utf8')));
        else if (op === OP.CLOSE) {
          closeCode = payload.length >= 2 ? payload.readUInt16BE(0) : 1005;
          closeReason = payload.subarray(2).toString('utf8');
        }
      }
    }

    ee.write = (b) => !sock.destroyed && sock.write(b);
    ee.text = (s) => ee.write(frame({ op: OP.TEXT, payload: Buffer.isBuffer(s) ? s : Buffer.from(s, 'utf8') }));
    ee.binary = (b) => ee.write(frame({ op: OP.BIN, payload: b }));
    ee.pause = () => sock.pause();
    ee.resume = () => sock.resume();
    ee.destroy = () => {
      destroyedByUs = true;
      sock.destroy();
    };
  });
}
