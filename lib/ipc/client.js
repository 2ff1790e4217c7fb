// The control-channel client used by the CLI (and tests): request/reply by id, events.
import { connectWebSocket } from './ws-client.js';
import { PROTOCOL, MAX_FRAME } from './protocol.js';
import { SuperError } from '../errors.js';
import { socketPath } from '../home.js';

/**
 * Connects to the daemon of `home` and waits for its hello.
 * Rejects with SuperError E_NO_DAEMON when nothing answers.
 * @param {string} home  SUPER_HOME
 * @param {{timeout?: number}} [opts]
 */
export function connect(home, { timeout = 5000 } = {}) {
  return new Promise((resolve, reject) => {
    const ws = connectWebSocket({ socketPath: socketPath(home) });
    const pending = new Map();
    const listeners = new Set();
    let nextId = 1;
    let hello = null;
    const timer = setTimeout(() => {
      ws.destroy();
      reject(new SuperError('E_TIMEOUT', `the daemon at ${socketPath(home)} did not say hello within ${timeout} ms`));
    }, timeout);

    ws.on('error', (err) => {
      clearTimeout(timer);
      if (!hello) {
        reject(new SuperError('E_NO_DAEMON', `no daemon answers on ${socketPath(home)} (${err.code ?? err.message}); start one with \`super start <ecosystem.yml>\``));
      }
    });
    ws.on('close', (code, reason) => {
      clearTimeout(timer);
      const err = code === 1009
        ? new SuperError('E_FRAME_TOO_LARGE', `the daemon closed the connection: a message exceeded the ${MAX_FRAME}-byte frame limit`)
        : new SuperError('E_NO_DAEMON', `the daemon closed the connection (${code}${reason ? ` ${reason}` : ''})`);
      for (const p of pending.values()) p.reject(err);
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
       */
      request(op, args = {}, { timeout: t = 30000, onProgress } = {}) {
        return new Promise((res, rej) => {
          const id = nextId++;
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
