// One control connection, as the daemon's handlers see it. Only this class changes its
// state (topics, the log follower it feeds); handlers use its narrow methods.
//
// An event stream whose client reads slower than events come is cut, not buffered.
const MAX_BUFFERED = 4 * 1024 * 1024;

export class Connection {
  #ws;
  #topics = new Set();
  #follower = null;

  /**
   * @param {import('ws').WebSocket} ws
   * @param {string|null} remote  the remote address of a connection over TCP, null on the unix socket
   */
  constructor(ws, remote) {
    this.#ws = ws;
    this.remote = remote;
    ws.once('close', () => this.#stopFollowing());
  }

  /** Sends one frame (nothing once the connection closed). */
  send(obj) {
    if (this.#ws.readyState === this.#ws.OPEN) this.#ws.send(JSON.stringify(obj));
  }

  /** True while the connection is open. */
  get open() {
    return this.#ws.readyState === this.#ws.OPEN;
  }

  /** Bytes queued for the client and not yet sent. */
  get backlog() {
    return this.#ws.bufferedAmount;
  }

  /** Subscribes to event topics; returns every topic it is subscribed to. */
  subscribe(topics) {
    for (const t of topics) this.#topics.add(t);
    return [...this.#topics];
  }

  /** Ends every subscription and the log follow, if any. */
  unsubscribe() {
    this.#topics.clear();
    this.#stopFollowing();
  }

  subscribed(topic) {
    return this.#topics.has(topic);
  }

  /** Sends an event of a subscribed topic; a client too slow for the stream is disconnected. */
  publish(topic, data) {
    if (!this.#topics.has(topic)) return;
    if (this.#ws.bufferedAmount > MAX_BUFFERED) {
      this.#ws.close(1008, 'event stream too slow');
      return;
    }
    this.send({ event: topic, data });
  }

  /**
   * Makes `follower` (lib/logs/follow.js) this connection's one log follow: a previous one
   * stops; it stops when the connection closes or unsubscribes.
   * @param {{stop: () => void}} follower
   */
  follow(follower) {
    this.#stopFollowing();
    this.#follower = follower;
    if (!this.open) follower.stop();
  }

  /** What a log follower writes to: 'log' events on this connection. */
  get logSink() {
    return { send: (data) => this.send({ event: 'log', data }), backlog: () => this.backlog, open: () => this.open };
  }

  /** Calls `fn` once the connection has closed (at once if it already has). */
  onClose(fn) {
    if (this.#ws.readyState === this.#ws.CLOSED) queueMicrotask(fn);
    else this.#ws.once('close', fn);
  }

  /** Closes at once (the daemon is exiting). */
  terminate() {
    this.#ws.terminate();
  }

  #stopFollowing() {
    this.#follower?.stop();
    this.#follower = null;
  }
}
