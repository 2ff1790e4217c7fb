// The raw listening handles of this primary's round-robin servers, so that a retiring daemon
// (`super upgrade`) can stop accepting on them (upgrade/cluster-listeners.js), and the time
// each connection was accepted on them, for the 'newconn' that hands it to a worker (its
// overload shedding measures the wait from there: worker-hooks.js).
//
// Node keeps a round-robin listener out of reach: RoundRobinHandle (lib/internal/cluster/
// round_robin_handle.js, Node 20 to 24) creates `net.createServer(assert.fail)`, calls
// listen(), then on 'listening' takes the server's raw handle (`_handle`) and drops the
// server. Wrapping net.Server.prototype.listen in the primary sees that call: for a server
// whose only 'connection' listener is cluster's `fail`, a 'listening' listener registered
// inside listen() runs before cluster's and records the raw handle. If Node changes this,
// nothing is recorded and retirement falls back to the workers' drain alone (the retiring
// daemon logs how many listeners it closed). Cluster's 'listening' listener then sets the
// raw handle's `onconnection` (to its distribute()); a tick later a wrapper of it is made that
// stamps each accepted handle (one clock read and two properties per connection: the time, and the
// listener, so that a connection taken out of Node's round-robin can be handed back to it:
// handBack). Without it, no stamp: a worker measures the wait from when it got the connection.
// The wrapper is in place only while a worker that needs the stamps lives (needAcceptStamps:
// an app with overload.max_queue_wait or sticky:); otherwise cluster's own onconnection is,
// so an accept costs the daemon nothing more than it costs a bare primary.
// A listener of an app with overload.max_queue_wait also gets the state of its handoff queue
// (handoff-shedding.js) at its first handoff: while that queue stands, the stamping wrapper
// may answer a connection itself instead of queuing it.
import net from 'node:net';
import { HandoffQueue } from './handoff-shedding.js';

/** Raw listening handles of the round-robin servers of this primary. */
const handles = new Set();
const ACCEPTED_AT = Symbol('superd.acceptedAt'); // on an accepted connection's handle: Date.now() at accept
const ACCEPTED_BY = Symbol('superd.acceptedBy'); // ... and the raw listener that accepted it
/** raw listener -> cluster's own onconnection (RoundRobinHandle's distribute) */
const distributors = new WeakMap();
/** raw listener -> its stamping onconnection, in place while stampers > 0 */
const stampingOf = new WeakMap();
/** @type {WeakMap<object, HandoffQueue>} raw listener -> its handoff queue's state (an app with max_queue_wait) */
let queues = new WeakMap();
let installed = false;
let handoffs = 0; // connections workers answered (a count: no clock read per connection)
let handoffsSeen = 0; // ... when lastHandoffAt() last looked
let lastSeenAt = 0; // ... and when it last found more
let stampers = 0; // live workers whose app reads the stamps (needAcceptStamps)

/**
 * Stamps every connection accepted from now on, until the returned function is called
 * (once per worker of an app with overload.max_queue_wait or sticky:, from its fork to its
 * exit: worker-hooks.js). A worker is hooked before it can listen, so the stamps are on
 * before any connection of its listener is accepted.
 * @returns {() => void}  releases this worker's need (again: nothing)
 */
export function needAcceptStamps() {
  if (stampers++ === 0) setStamping(true);
  let released = false;
  return () => {
    if (released) return;
    released = true;
    if (--stampers > 0) return;
    setStamping(false);
    // With no stamps, no handoff reaches handoffQueueOf to drop a state a reload left: dropped here.
    queues = new WeakMap();
  };
}

/** Puts each open listener's stamping onconnection in place, or cluster's own back. */
function setStamping(on) {
  for (const raw of handles) {
    const onconnection = (on ? stampingOf : distributors).get(raw);
    if (onconnection) raw.onconnection = onconnection;
  }
}

/** Records every round-robin listener cluster creates from now on. */
export function trackRoundRobinListeners() {
  if (installed) return;
  installed = true;
  const listen = net.Server.prototype.listen;
  net.Server.prototype.listen = function listenTracked(...args) {
    const own = this.listeners('connection');
    if (own.length === 1 && own[0].name === 'fail') {
      this.once('listening', () => {
        const raw = /** @type {any} libuv's handle: Node internals, no public API gives it */ (this)._handle;
        if (!raw) return;
        handles.add(raw);
        process.nextTick(() => stampAccepts(raw));
        const close = raw.close;
        raw.close = function closeTracked(...a) {
          handles.delete(raw);
          return close.apply(this, a);
        };
      });
    }
    return listen.apply(this, args);
  };
}

/** Wraps cluster's onconnection of a round-robin listener to stamp each accepted handle. */
function stampAccepts(raw) {
  const distribute = raw.onconnection;
  if (typeof distribute !== 'function') return;
  distributors.set(raw, distribute);
  stampingOf.set(raw, function onconnectionStamped(err, handle) {
    if (handle && typeof handle === 'object') {
      const now = Date.now();
      handle[ACCEPTED_AT] = now;
      handle[ACCEPTED_BY] = raw;
      const queue = queues.get(raw);
      if (queue && !queue.admit(handle, now)) return undefined; // refused by the daemon
    }
    return distribute.call(this, err, handle);
  });
  if (stampers > 0) raw.onconnection = stampingOf.get(raw);
}

/**
 * The handoff queue state of the listener that accepted `handle`, for a worker whose app has
 * `settings` (made at the app's first handoff, its settings updated by a reload's workers);
 * null for a connection of no stamped round-robin listener, or when the worker's app has
 * none (a reload took max_queue_wait off: the listener's state is dropped, and it refuses
 * nothing).
 * @param {object} handle
 * @param {ConstructorParameters<typeof HandoffQueue>[0]|null} settings
 * @returns {HandoffQueue|null}
 */
export function handoffQueueOf(handle, settings) {
  const raw = handle?.[ACCEPTED_BY];
  if (!raw) return null;
  let queue = queues.get(raw);
  if (!settings) {
    if (queue) queues.delete(raw);
    return null;
  }
  if (!handles.has(raw)) return null;
  if (!queue) queues.set(raw, (queue = new HandoffQueue(settings)));
  else queue.configure(settings);
  return queue;
}

/** True when handBack(handle) can work: the connection was accepted on a stamped round-robin listener. */
export function canHandBack(handle) {
  return distributors.has(handle?.[ACCEPTED_BY]);
}

/**
 * Gives a connection taken out of Node's round-robin (sticky-router.js reads its head off
 * the workers' turns) back to the listener that accepted it, as if just accepted: Node
 * queues it and hands it to the next free worker. False when that listener is closed (its
 * queue is no one's now: the caller closes the connection, as Node closes that queue).
 */
export function handBack(handle) {
  const raw = handle?.[ACCEPTED_BY];
  const distribute = distributors.get(raw);
  if (!distribute || !handles.has(raw)) return false;
  handle[ACCEPTED_AT] = Date.now(); // its wait for a worker starts now: the time before was the client's
  distribute.call(raw, 0, handle);
  return true;
}

/** When the connection of `handle` was accepted (ms since the epoch), or null (not stamped). */
export function acceptedAt(handle) {
  const at = handle?.[ACCEPTED_AT];
  return typeof at === 'number' ? at : null;
}

/** Closes every round-robin listener (only this process's descriptor); returns how many. */
export function closeRoundRobinListeners() {
  const n = handles.size;
  for (const raw of [...handles]) raw.close();
  return n;
}

/** A worker answered a handed connection (worker-hooks.js). */
export function handedOff() {
  handoffs++;
}

/**
 * When a worker last answered a handed connection (ms since the epoch; 0: never), as seen by
 * the calls of this function: the time of the first call that found it, so a caller that
 * polls it (upgrade's quiesce) sees each handoff at most one poll late.
 */
export function lastHandoffAt() {
  if (handoffs !== handoffsSeen) {
    handoffsSeen = handoffs;
    lastSeenAt = Date.now();
  }
  return lastSeenAt;
}
