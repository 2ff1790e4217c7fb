// The control-channel client used by the CLI (and tests): request/reply by id, events.
import { connectWebSocket } from './ws-client.js';
import { PROTOCOL, MAX_FRAME } from './protocol.js';
import { SuperError } from '../errors.js';
import { socketPath } from '../home.js';

/**
 * Connects to the daemon of `home` (or to `remote`) and waits for its hello.
 * Rejects with SuperError E_NO_DAEMON when nothing answers; over TCP also with E_AUTH
 * (401), E_ORIGIN (403), E_RATE_LIMITED (429) or E_TLS.
 * @param {string} home  SUPER_HOME
 * @param {{timeout?: number, remote?: {where: object, label: string}}} [opts]
 *   remote: a TCP target from lib/ctl/remote-target.js (where: connectWebSocket's argument)
 */
export function connect(home, { timeout = 5000, remote } = {}) {
  return new Promise((resolve, reject) => {
    const label = remote?.label ?? socketPath(home);
    const ws = connectWebSocket(remote?.where ?? { socketPath: socketPath(home) });
    const pending = new Map();
    const listeners = new Set();
    let nextId = 1;
    let hello = null;
    const timer = setTimeout(() => {
      ws.destroy();
      reject(new SuperError('E_TIMEOUT', `the daemon at ${label} did not say hello within ${timeout} ms`));
    }, timeout);

    ws.on('error', (err) => {
      clearTimeout(timer);
      if (!hello) reject(remote ? remoteError(err, label) : new SuperError('E_NO_DAEMON', `no daemon answers on ${label} (${err.code ?? err.message}); start one with \`super start <ecosystem.yml>\``));
    });
    ws.on('close', (code, reason) => {
      clearTimeout(timer);
      const err = code === 1009
        ? new SuperError('E_FRAME_TOO_LARGE', reason
          ? `the connection to ${label} was closed: ${reason}` // this client's own bound (ws-client.js)
          : `the daemon closed the connection: a message exceeded the ${MAX_FRAME}-byte frame limit`)
        : new SuperError('E_NO_DAEMON', `the daemon closed the connection (${code}${reason ? ` ${reason}` : ''})${remote && !hello ? `; if ${label} serves TLS (control.tls), add --tls or --tls-ca <file>` : ''}`);
      for (const p of pending.values()) {
        clearTimeout(p.timer);
        p.reject(err);
      }
      pending.clear();
      if (!hello) reject(err);
      for (const fn of listeners) fn({ closed: true, code, reason });
    });
    ws.on('message', (text) => {
      let msg;
      try {
        msg = JSON.parse(text);
      } catch {
        return;
      }
      if (!hello && msg.hello) {
        clearTimeout(timer);
        hello = msg.hello;
        if (hello.protocol !== PROTOCOL) {
          ws.close();
          reject(new SuperError('E_PROTOCOL', `the daemon speaks protocol ${hello.protocol}, this client ${PROTOCOL}; restart the daemon (super kill, then super start)`));
          return;
        }
        resolve(client);
        return;
      }
      if (msg.event) {
        for (const fn of listeners) fn(msg);
        return;
      }
      const p = pending.get(msg.id);
      if (!p) return;
      if (msg.progress !== undefined) {
        p.onProgress?.(msg.progress);
        return;
      }
      pending.delete(msg.id);
      clearTimeout(p.timer);
      if (msg.ok) p.resolve(msg.data);
      else p.reject(SuperError.fromJSON(msg.error));
    });

    const client = {
      get hello() {
        return hello;
      },
      /**
       * Sends {id, op, args} and resolves with `data`, or rejects with the SuperError of
       * the reply; progress frames of long ops (reload) go to onProgress as they come.
       * @param {string} op  @param {object} [args]
       * @param {{timeout?: number, onProgress?: (data: object) => void}} [o]
       */
      request(op, args = {}, { timeout: t = 30000, onProgress } = {}) {
        return new Promise((res, rej) => {
          const id = nextId++;
          /** @type {{resolve: (v: unknown) => void, reject: (e: Error) => void, timer: NodeJS.Timeout|null, onProgress: typeof onProgress}} */
          const entry = { resolve: res, reject: rej, timer: null, onProgress };
          if (t > 0) {
            entry.timer = setTimeout(() => {
              pending.delete(id);
              rej(new SuperError('E_TIMEOUT', `the daemon did not answer "${op}" within ${t} ms`));
            }, t);
          }
          pending.set(id, entry);
          ws.send(JSON.stringify({ id, op, args }));
        });
      },
      /** Registers fn for events ({event, data}) and for the connection closing ({closed: true}). */
      onEvent(fn) {
        listeners.add(fn);
        return () => listeners.delete(fn);
      },
      /** Stops / restarts reading from the daemon (backpressure for event streams). */
      pause() {
        ws.pause();
      },
      resume() {
        ws.resume();
      },
      sendRaw(text) {
        ws.sendRaw(Buffer.isBuffer(text) ? text : Buffer.from(text));
      },
      close() {
        ws.close();
      },
    };
  });
}

// The TLS failures a client meets: untrusted or mismatched certificate, or a peer that
// does not speak TLS.
const TLS_CODES = /CERT|SELF_SIGNED|UNABLE_TO|ERR_TLS|ERR_SSL|EPROTO|HOSTNAME/;

/** A failed connection to a TCP control listener -> the SuperError the CLI prints. */
function remoteError(err, label) {
  switch (err.status) {
    case 401: return new SuperError('E_AUTH', `${label} refused the token (401); check --token-file (\`super token\` on the daemon's host prints the current token)`);
    case 403: return new SuperError('E_ORIGIN', `${label} refused this Origin (403); add it to control.origins`);
    case 429: return new SuperError('E_RATE_LIMITED', `${label} refused the connection: too many failed authentications from this address (429); wait a minute and retry with the right token`);
    default: break;
  }
  if (err.status) return new SuperError('E_NO_DAEMON', `${label} is not a superd control listener (${err.message})`);
  const code = err.code ?? '';
  if (TLS_CODES.test(code) || /certificate|ssl|tls/i.test(err.message)) {
    return new SuperError('E_TLS', `the TLS connection to ${label} failed (${code || err.message}); trust the daemon's certificate with --tls-ca <file>, or drop --tls for a listener without TLS`);
  }
  return new SuperError('E_NO_DAEMON', `no superd control listener answers at ${label} (${code || err.message}); is control.listen set in the daemon's ecosystem file?`);
}
