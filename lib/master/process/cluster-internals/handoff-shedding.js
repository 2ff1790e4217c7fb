// The daemon's own overload refusal, for a round-robin app with `overload.max_queue_wait`
// (docs/overload.md, "Refused by the daemon"). Under round-robin a new connection waits in
// the daemon's handoff queue (Node's RoundRobinHandle hands a busy worker one connection per
// turn of its loop) before any worker sees it, so a worker could refuse it only after that
// wait. The daemon sees that queue exactly, so it keeps CoDel's standing-queue state of it
// (Nichols and Jacobson, "Controlling Queue Delay") and, while the queue stands, answers a
// connection that would wait behind others itself, without reading the request.
//
//   standing  entered when every connection handed to a worker for an interval (the app's
//             max_queue_wait, at least MIN_INTERVAL_MS; at least MIN_SEEN of them) had
//             waited in the queue past the target (a fifth of max_queue_wait): a burst
//             empties the queue within an interval, a load past capacity does not. Left when
//             a worker found the queue empty and stayed free past the target before the next
//             connection came (spare capacity): while standing the daemon keeps the queue
//             short, so its waits no longer tell whether the load still exceeds what the
//             workers take, but an idle worker does. Within REENTRY_INTERVALS of leaving, a
//             connection handed past the target with another behind it stands it again at
//             once (CoDel's memory of its last dropping state).
//   refused   while standing, a connection accepted when the queue already holds one per
//             worker serving the port (each worker has its next connection waiting); and,
//             at its handoff, one that queued before the queue stood and waited past the
//             target. Answered with the app's status, Retry-After, Connection: close and
//             Content-Length: 0, then ended; what the client sends meanwhile is read and
//             dropped for at most LINGER_MS (closing with unread bytes would reset the
//             connection, and the client would lose the answer), then it is destroyed.
//             At most MAX_REFUSING connections are being answered at once; past that, one is
//             closed outright.
//
// Cost: for a listener of such an app, one flag test and a counter per accepted connection
// while the queue does not stand, and an O(1) update per handed one; none for other apps (the
// listener has no queue state). Each refusal is credited to the worker last handed a
// connection of the port (takeDaemonRefusals), added to its shed count at its next report.
// Nothing is logged per connection.
import net from 'node:net';
import http from 'node:http';

const TARGET_SHARE = 5; // as the agent's (lib/worker/overload.cjs)
const MIN_INTERVAL_MS = 100;
const MIN_SEEN = 3; // handed connections an interval needs to call the queue standing
const REENTRY_INTERVALS = 16; // CoDel's: a queue that stood this recently stands again at once
const LINGER_MS = 1000; // how long a refused connection's further bytes are read and dropped
const MAX_REFUSING = 256; // refused connections still open; past this, closed at once
const RECENT_MS = 1000; // a worker whose port the daemon refused for within this sheds "now"

let refusing = 0;

/** @type {WeakMap<object, {count: number, at: number}>} cluster Worker -> refusals credited to it, not yet reported */
const credited = new WeakMap();

/**
 * The state of one round-robin listener's handoff queue.
 */
export class HandoffQueue {
  /**
   * @param {{maxQueueWait: number, status: number, retryAfter: number}} settings  ms; retryAfter in whole seconds (0: no header)
   */
  constructor(settings) {
    /** @type {{maxQueueWait: number, status: number, retryAfter: number}|null} */
    this.settings = null;
    this.target = 0; // ms: a fifth of max_queue_wait
    this.interval = MIN_INTERVAL_MS;
    this.answer = Buffer.alloc(0);
    this.configure(settings);
    this.queued = 0; // accepted, not yet handed to a worker
    this.workers = 1; // serving the port, at the last handoff
    this.standing = false;
    this.aboveSince = null; // since then, every connection handed had waited past the target
    this.aboveSeen = 0; // ... this many
    this.freeSince = null; // a worker has found the queue empty since then, and got nothing since
    this.leftAt = -Infinity; // when the queue last stopped standing
    this.since = 0; // ... and last began to
    /** @type {object|null} the cluster Worker last handed a connection (refusals are credited to it) */
    this.lastWorker = null;
  }

  /**
   * The app's settings (again at each handoff: a reload may change them).
   * @param {{maxQueueWait: number, status: number, retryAfter: number}} settings
   */
  configure(settings) {
    if (settings === this.settings) return;
    const { maxQueueWait, status, retryAfter } = settings;
    const was = this.settings;
    this.settings = settings;
    if (was && was.maxQueueWait === maxQueueWait && was.status === status && was.retryAfter === retryAfter) return;
    this.target = maxQueueWait / TARGET_SHARE;
    this.interval = Math.max(MIN_INTERVAL_MS, maxQueueWait);
    this.answer = refusal(status, retryAfter);
  }

  /**
   * A connection was accepted (before Node's distribute sees it): false when the daemon
   * refused it (it has answered it and owns the handle).
   */
  admit(handle, now) {
    if (!this.standing || this.queued < this.workers) {
      this.queued++;
      return true;
    }
    this.refuse(handle, now);
    return false;
  }

  /** Answers a connection with the refusal, and credits it to the worker last handed one. */
  refuse(handle, now) {
    refuse(handle, this.answer);
    if (!this.lastWorker) return;
    const c = credited.get(this.lastWorker);
    if (c) {
      c.count++;
      c.at = now;
    } else credited.set(this.lastWorker, { count: 1, at: now });
  }

  /**
   * A connection accepted at `acceptedAt` is being handed to `worker`, one of `workers`
   * serving the port: its wait in the queue, for the standing-queue test. True when the
   * daemon refuses it instead (the queue stands and it waited past the target: one that
   * queued before the daemon knew).
   */
  handed(acceptedAt, now, workers, worker) {
    if (this.queued > 0) this.queued--;
    this.workers = Math.max(1, workers);
    this.lastWorker = worker;
    const wait = acceptedAt === null ? 0 : now - acceptedAt;
    // The first handoff after a worker found the queue empty went to that worker: it was
    // free all that time.
    if (this.freeSince !== null) {
      if (this.standing && now - this.freeSince > this.target) {
        this.standing = false;
        this.leftAt = now;
      }
      this.freeSince = null;
    }
    // It stands when every connection handed for an interval had waited past the target.
    if (wait <= this.target) {
      this.aboveSince = null;
      this.aboveSeen = 0;
    } else {
      if (this.aboveSince === null) this.aboveSince = now;
      this.aboveSeen++;
      // Or, having stood a moment ago (CoDel's memory of its last dropping state), a queue
      // forming again (another waiting behind this one) stands at once, not an interval later.
      const stands = (this.aboveSeen >= MIN_SEEN && now - this.aboveSince >= this.interval)
        || (now - this.leftAt < REENTRY_INTERVALS * this.interval && this.queued >= this.workers);
      if (stands && !this.standing) {
        this.standing = true;
        this.since = now;
      }
    }
    // One that queued before the daemon knew, past the target: refused now. The ones it
    // admitted since (one per worker) go to their worker, whatever a turn takes.
    return this.standing && wait > this.target && acceptedAt !== null && acceptedAt < this.since;
  }

  /** A worker answered its connection and Node found nothing queued for it: it is free. */
  emptied(now) {
    this.queued = 0;
    this.aboveSince = null; // the queue emptied: not standing
    this.aboveSeen = 0;
    if (this.freeSince === null) this.freeSince = now;
  }
}

/** The canned answer of a refused connection. */
function refusal(status, retryAfter) {
  const lines = [`HTTP/1.1 ${status} ${http.STATUS_CODES[status] ?? 'Overloaded'}`];
  if (retryAfter > 0) lines.push(`Retry-After: ${retryAfter}`);
  lines.push('Connection: close', 'Content-Length: 0', '', '');
  return Buffer.from(lines.join('\r\n'), 'latin1');
}

/** Answers a just-accepted connection's raw handle with `answer`, and ends it (bounded). */
function refuse(handle, answer) {
  if (refusing >= MAX_REFUSING) {
    handle.close();
    return;
  }
  let socket;
  try {
    // `handle`: a raw libuv handle (net's own way to wrap an accepted connection; not in Node's typings)
    socket = new net.Socket(/** @type {any} */ ({ handle, readable: true, writable: true }));
  } catch {
    handle.close();
    return;
  }
  refusing++;
  const linger = setTimeout(() => socket.destroy(), LINGER_MS);
  linger.unref();
  socket.once('close', () => {
    refusing--;
    clearTimeout(linger);
  });
  socket.on('error', () => socket.destroy());
  socket.resume(); // the request is never parsed: read and dropped until the client closes
  socket.end(answer);
}

/**
 * The refusals the daemon credited to `worker` since the last call, and whether one was
 * recent (the worker's port is being shed now); null when none.
 * @param {object} worker  a cluster Worker
 * @returns {{count: number, recent: boolean}|null}
 */
export function takeDaemonRefusals(worker, now = Date.now()) {
  const c = credited.get(worker);
  if (!c) return null;
  const out = { count: c.count, recent: now - c.at < RECENT_MS };
  c.count = 0;
  if (!out.recent) credited.delete(worker);
  return out;
}
