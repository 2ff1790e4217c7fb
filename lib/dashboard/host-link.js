// The dashboard's connection to one daemon, over the control channel every `super` command
// uses (the local socket, or a --host TCP listener with its token and TLS). It reconnects
// by itself (1 s, doubling to 30 s), and subscribes to the daemon's events only while
// `wanted` (a page is open): with no page, the daemon sends this dashboard nothing.
// What the daemon sends is untrusted (another host, another version): each answer and event
// is checked and bounded (lib/ipc/daemon-input.js) before it is emitted; a malformed one
// drops this daemon's connection (shown down, with why, and retried), never the process.
import { EventEmitter } from 'node:events';
import { connect } from '../ipc/client.js';
import { checkApps, checkEvent, checkTail } from '../ipc/daemon-input.js';

// deploy: each record `super deploy` sets, as it is set; a daemon older than that topic
// refuses it, and is asked again without it (its records then come with "metrics" only).
const TOPICS = ['metrics', 'worker', 'reload', 'log', 'deploy'];
const OLD_TOPICS = TOPICS.filter((t) => t !== 'deploy');
const TAIL_LINES = 100; // per log file, when a page opens (the hub keeps the last 500 of a host)
const RETRY_MS = [1000, 2000, 5000, 10000, 30000];

export class HostLink extends EventEmitter {
  /**
   * @param {{name: string, home: string, remote?: () => Promise<{where: object, label: string}|null>}} o
   *   remote: builds a fresh TCP target per attempt (a TLS socket is single-use)
   */
  constructor({ name, home, remote }) {
    super();
    this.name = name;
    this.home = home;
    this.remote = remote;
    this.state = 'connecting'; // connecting | up | down
    this.error = null;
    this.client = null;
    this.hello = null;
    this.wanted = false;
    this.subscribed = false;
    this.attempt = 0;
    this.timer = null;
    this.closed = false;
  }

  start() {
    this.#connect();
    return this;
  }

  async #connect() {
    if (this.closed) return;
    this.state = 'connecting';
    this.emit('state');
    let client;
    try {
      client = await connect(this.home, { remote: (await this.remote?.()) ?? undefined });
    } catch (err) {
      return this.#down(err);
    }
    if (this.closed) return client.close();
    this.client = client;
    this.hello = client.hello;
    this.attempt = 0;
    this.subscribed = false;
    client.onEvent((msg) => {
      if (msg.closed) {
        if (this.client !== client) return;
        if (msg.code === 1009) this.#down({ code: 'E_FRAME_TOO_LARGE', message: `the connection was closed: ${msg.reason || 'a message over the size limit'}` });
        else this.#down({ code: 'E_NO_DAEMON', message: `the daemon closed the connection (${msg.code})` });
        return;
      }
      if (this.client !== client) return;
      try {
        const event = checkEvent(msg);
        if (event) this.emit('event', event);
      } catch (err) {
        this.fail(err, client);
      }
    });
    this.state = 'up';
    this.error = null;
    this.emit('state');
    this.emit('up');
    this.#sync();
  }

  #down(err) {
    this.client = null;
    this.subscribed = false;
    this.state = 'down';
    this.error = `${err.code ?? 'E_NO_DAEMON'}: ${err.message}`;
    this.emit('state');
    if (this.closed) return;
    const delay = RETRY_MS[Math.min(this.attempt++, RETRY_MS.length - 1)];
    this.timer = setTimeout(() => this.#connect(), delay);
  }

  /** Pages are open (true) or not (false): subscribe or unsubscribe to match. */
  want(on) {
    this.wanted = on;
    this.#sync();
  }

  async #sync() {
    const client = this.client;
    if (!client || this.wanted === this.subscribed) return;
    this.subscribed = this.wanted;
    try {
      if (this.wanted) {
        const seed = await client.request('ls', { history: true });
        if (this.client !== client) return;
        this.emit('seed', checkApps(seed));
        // The last lines of each file too: a page that opens shows what was written while none was open.
        const answer = await client.request('subscribe', { topics: TOPICS, lines: TAIL_LINES }).catch((err) => {
          if (err.code !== 'E_BAD_REQUEST' || this.client !== client) throw err;
          return client.request('subscribe', { topics: OLD_TOPICS, lines: TAIL_LINES });
        });
        if (this.client !== client) return;
        this.emit('tail', checkTail(answer?.files));
      } else await client.request('unsubscribe', {});
    } catch (err) {
      // the connection went away (#down() reconnects and syncs again), or the answer was malformed
      if (err.code === 'E_PROTOCOL' || !err.code) this.fail(err, client);
    }
    if (this.client === client && this.wanted !== this.subscribed) this.#sync();
  }

  /**
   * The daemon sent something malformed (or handling it failed): its connection is
   * dropped, the host shown down with why, and retried like any other failure.
   */
  fail(err, client = this.client) {
    if (!client || this.client !== client) return;
    client.close();
    const message = String(err?.message ?? err).slice(0, 300);
    this.#down({ code: 'E_PROTOCOL', message: err?.code === 'E_PROTOCOL' ? message : `the daemon sent a message this dashboard cannot use (${message})` });
  }

  /** One request to the daemon; E_NO_DAEMON while it is not connected. */
  request(op, args, opts) {
    if (!this.client) return Promise.reject(Object.assign(new Error(`host ${this.name} is not connected (${this.error ?? this.state})`), { code: 'E_NO_DAEMON' }));
    return this.client.request(op, args, opts);
  }

  close() {
    this.closed = true;
    clearTimeout(this.timer ?? undefined);
    this.client?.close();
    this.client = null;
  }
}
