// One control connection, as the daemon's handlers see it. Only this class changes its
// state (topics, the log follower it feeds); handlers use its narrow methods.
//
// A client that reads slower than its event stream or its replies come is cut, not
// buffered for: at most MAX_BUFFERED bytes wait for it (plus the frame being sent).
const MAX_BUFFERED = 4 * 1024 * 1024;
// A client with MAX_IN_FLIGHT requests unanswered is not read from until one is answered
// (plus the frames of the chunk being parsed, which ws hands over at once).
const MAX_IN_FLIGHT = 64;
// A cut client is sent a close frame (1008 and the reason), queued behind what it left
// unread; if it has not read up to it by then, its socket and that queue go.
const CUT_GRACE_MS = 2000;
const UNREAD = `more than ${MAX_BUFFERED / 1024 / 1024} MB`;

export class Connection {
  #ws;
  #topics = new Set();
  /** @type {{stop: () => void}|null} */
  #follower = null;
  #inFlight = 0;
  #onCut;

  /**
   * @param {import('ws').WebSocket} ws
   * @param {string|null} remote  the remote address of a connection over TCP, null on the unix socket
   * @param {(reason: string) => void} [onCut]  told when the connection is cut for reading too slowly
   */
  constructor(ws, remote, onCut = () => {}) {
    this.#ws = ws;
    this.remote = remote;
    this.#onCut = onCut;
    ws.once('close', () => this.#stopFollowing());
  }

  /**
   * Takes one request in, to be answered with `reply`. False when the connection is not
   * open, or the client left too many replies unread (it is then cut).
   */
  accept() {
    if (!this.open) return false;
    if (this.#ws.bufferedAmount > MAX_BUFFERED) return this.#cut(`replies not read (${UNREAD} waiting)`);
    if (++this.#inFlight === MAX_IN_FLIGHT) this.#ws.pause();
    return true;
  }

  /** Sends the reply of a request `accept` took in (an E_INTERNAL one if it cannot be encoded). */
  reply(obj) {
    if (this.#inFlight-- === MAX_IN_FLIGHT && this.open) this.#ws.resume();
    if (this.#ws.bufferedAmount > MAX_BUFFERED) {
      this.#cut(`replies not read (${UNREAD} waiting)`);
      return;
    }
    let text;
    try {
      text = JSON.stringify(obj);
    } catch (err) {
      text = JSON.stringify({ id: obj.id, ok: false, error: { code: 'E_INTERNAL', message: `the reply could not be encoded: ${err.message}` } });
    }
    if (this.open) this.#ws.send(text);
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

  /**
   * Sends an event of a subscribed topic; a client too slow for the stream is disconnected.
   * @param {string} topic
   * @param {() => string} frame  the event's encoded frame ({event, data}), built at most
   *   once by the caller for all its subscribers
   */
  publish(topic, frame) {
    if (!this.#topics.has(topic)) return;
    if (this.#ws.bufferedAmount > MAX_BUFFERED) this.#cut(`event stream too slow (${UNREAD} waiting)`);
    else if (this.open) this.#ws.send(frame());
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

  /** Closes a client that reads too slowly (1008: policy violation); returns false. */
  #cut(why) {
    if (!this.open) return false;
    this.#ws.close(1008, why);
    setTimeout(() => this.#ws.terminate(), CUT_GRACE_MS).unref();
    this.#onCut(why);
    return false;
  }

  #stopFollowing() {
    this.#follower?.stop();
    this.#follower = null;
  }
}
