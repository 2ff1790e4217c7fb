'use strict';
// Overload shedding (the app's `overload:` key, handed over as SUPER_OVERLOAD): while this
// worker is over a bound, each new HTTP request is answered at once with the configured
// status and Retry-After, before the app's 'request' listeners see it, so a client (or
// HAProxy) gets a fast refusal instead of a place in a growing queue. The app's code is
// not changed: each server gets its own `emit` at listen(). The connection stays open: a
// new one would reach the worker only through the daemon's round-robin handoff, which
// waits for a turn of the worker's loop per connection, so under load it would queue there.
//
// max_queue_wait judges each request by the wait it saw (below, CoDel); the daemon stamps the
// accept time of each connection it hands over (round-robin), a worker that accepts its own
// watches whether its accept queue empties (ACCEPT_RUN), slow uploads and pipelined
// requests do not count in max_inflight, and slow senders get HAProxy-like timeouts.
//
// The decision is O(1) per request, from two figures kept here:
// - in flight: requests handed to the app and not yet closed (ServerResponse 'close');
// - the loop's delay: how long the loop's last turn ran, or the turn in progress has run
//   if that is more (less TICK_MS, the most an idle wait can add). A turn is timed from the
//   last mark: a 10 ms timer of ours, and the check phase (setImmediate) of each turn that
//   read a request. The requests that waited through a long turn are read in the next one:
//   they are shed, and that turn, being short, lets the one after serve again. The figure
//   is at most one turn old: a histogram or a p99 of the last second would admit a whole
//   long turn before it knew, then keep shedding long after the loop is free again.
// With max_loop_delay, the requests a turn reads (a CPU-bound worker reads every one that
// waited) are decided together in its check phase: the ones that would wait past the bound
// behind the ones admitted before them (a moving average of what serving one costs the
// loop) are refused first, then the admitted ones are served, each checked again against
// the time the turn has really taken (busy time: no idle wait is allowed for within a
// turn). So a refusal waits only for the request that was running when it came, not for
// the ones served ahead of it in its turn.
// The timer runs only with max_loop_delay, only while requests come (IDLE_TICKS), unref'd.
//
// An episode starts at the first shed request and ends once the worker is under its bounds
// and has shed nothing for QUIET_MS (a worker that holds max_inflight requests is still
// over its bound while no new request comes): one line in the app's error log at each
// end, and a metrics report at each (onEpisode), so the daemon's /readyz follows it
// without waiting for its next ask.

const TICK_MS = 10;
const IDLE_TICKS = 100; // ticks (about 1 s of a free loop) without a request: the timer stops
const QUIET_MS = 1000; // no shed request for this long: the episode is over
const GUARDED = Symbol('superd.overloadGuard');
const SHED = Symbol.for('superd.shed'); // on a shed response: metrics.cjs does not count it
const COST_WEIGHT = 0.5; // of the last served request in the cost estimate
// The events a new HTTP request comes as: 'checkContinue' / 'checkExpectation' instead of
// 'request' when the app listens to them (Expect: 100-continue); the shed answer is final.
const REQUEST_EVENTS = new Set(['request', 'checkContinue', 'checkExpectation']);
// max_queue_wait, CoDel's standing-queue test (Nichols and Jacobson, "Controlling Queue
// Delay"; Facebook's adaptive CoDel): over each interval (max_queue_wait, at least
// MIN_INTERVAL_MS), the least wait of the requests decided in it. Above the target
// (max_queue_wait / TARGET_SHARE) in STANDING_INTERVALS intervals in a row, the queue is
// standing, not a burst or a stall of the host: in the next interval a request that waited
// past the target is refused; otherwise only one past max_queue_wait.
// A host busy with other work delays some requests, not all of them: the least wait stays
// low and nothing is refused. And the worker's own queue is what shedding can shorten: a
// wait counts only while the loop was busy (its utilization over the last interval at least
// BUSY_ELU). A loop kept waiting by the kernel for a CPU others use is idle in that figure
// (the wait is in epoll), so a starved host at a low load refuses nothing.
const TARGET_SHARE = 5;
const BUSY_ELU = 0.5;
const STANDING_INTERVALS = 2;
const MIN_INTERVAL_MS = 100;
const MIN_SEEN = 3; // requests an interval needs to call its queue standing
const HANDOFF = Symbol('superd.handoffWait'); // on a socket: how long its connection waited before this worker saw it (ms)
// A worker that accepts its connections itself (`scheduling: os`, a port of its own) takes
// one from the kernel's accept queue per turn of its loop (libuv accepts one connection per
// poll of the listening socket), and the kernel does not say how long one waited there. What
// the worker does see: whether each turn accepted one. A queue that is never found empty
// turn after turn is standing (CoDel's test with the least wait read as "was it empty");
// past the target, the requests of the connections it accepts are refused (each in a
// fraction of a millisecond, so the turns shorten and the queue drains) until a turn finds
// the queue empty.
const ACCEPT_RUN = Symbol('superd.acceptRun'); // on a server: {since, hit} while each turn accepts a connection
const BACKLOG = Symbol('superd.acceptBacklog'); // on a socket: how long its server's accept queue had not emptied when it was accepted (ms)
const READ_BEFORE = Symbol('superd.readBefore'); // on a socket: a request of it was read before (it is kept alive)
const OPEN = Symbol('superd.openRequests'); // on a socket: its admitted requests not yet closed
/** The request waits behind another of its connection (HTTP pipelining): it takes no place of its own. */
const pipelined = (req) => req?.socket?.[OPEN] > 0;
// Slow senders: Node's defaults (a request 300 s, its headers 60 s, checked every 30 s) hold a
// connection for minutes; an app that kept them gets request_timeout (HAProxy's `timeout
// http-request` role), its headers the least of it and HEADERS_TIMEOUT_MS, checked every
// quarter of it (Node reads the interval when the server starts listening).
const NODE_TIMEOUTS = { requestTimeout: 300_000, headersTimeout: 60_000, connectionsCheckingInterval: 30_000 };
const HEADERS_TIMEOUT_MS = 10_000;
const DEFAULT_REQUEST_TIMEOUT_MS = 30_000;
const MIN_CHECK_INTERVAL_MS = 100;
/** The timeouts an app's server that kept Node's defaults gets, for `requestTimeout` (ms). */
const senderTimeouts = (requestTimeout) => ({
  requestTimeout,
  headersTimeout: Math.min(HEADERS_TIMEOUT_MS, requestTimeout),
  connectionsCheckingInterval: Math.min(NODE_TIMEOUTS.connectionsCheckingInterval, Math.max(MIN_CHECK_INTERVAL_MS, requestTimeout / 4)),
});
const MAX_HANDOFF_MS = 60_000; // a stamp further off is a clock step, not a wait

/** The settings of SUPER_OVERLOAD (ms), or null: off. */
function parseSettings(text) {
  if (!text) return null;
  try {
    const s = JSON.parse(text);
    const bound = (v) => (typeof v === 'number' && v > 0 ? v : null);
    const out = {
      maxLoopDelay: bound(s.max_loop_delay),
      maxInflight: bound(s.max_inflight),
      maxQueueWait: bound(s.max_queue_wait),
      status: Number.isInteger(s.status) && s.status >= 400 && s.status <= 599 ? s.status : 503,
      retryAfter: typeof s.retry_after === 'number' && s.retry_after > 0 ? Math.ceil(s.retry_after / 1000) : 0,
      requestTimeout: bound(s.request_timeout) ?? DEFAULT_REQUEST_TIMEOUT_MS,
    };
    return out.maxLoopDelay || out.maxInflight || out.maxQueueWait ? out : null;
  } catch {
    return null;
  }
}

/** The shed response's headers. */
function responseHeaders(settings, body) {
  const h = { 'content-type': 'text/plain; charset=utf-8', 'content-length': Buffer.byteLength(body) };
  if (settings.retryAfter) h['retry-after'] = String(settings.retryAfter);
  return h;
}

/**
 * The shedding state of one worker.
 * @param {{maxLoopDelay: number|null, maxInflight: number|null, maxQueueWait: number|null, status: number, retryAfter: number, requestTimeout: number}} settings
 * @param {object} [o]
 * @param {() => number} [o.clock]  ms, monotonic
 * @param {(line: string) => void} [o.log]
 */
function createShedder(settings, { clock = () => performance.now(), log = (line) => process.stderr.write(line) } = {}) {
  const timed = Boolean(settings.maxLoopDelay || settings.maxQueueWait); // decided in the check phase, with the timer
  const interval = Math.max(MIN_INTERVAL_MS, settings.maxQueueWait ?? 0);
  const target = (settings.maxQueueWait ?? 0) / TARGET_SHARE;
  let intervalEnd = 0;
  let minWait = Infinity; // the least wait decided in this interval (ms)
  let seen = 0;
  let standing = false; // the last STANDING_INTERVALS intervals' least wait was over the target
  let overRuns = 0; // intervals in a row whose least wait was over the target
  let loopBusy = false; // the loop was busy for most of the last interval: the waits are its own queue's
  let eluMark = null; // performance.eventLoopUtilization() at the interval's start
  let handedAt = null; // the daemon's accept stamp of the connection being handed (round-robin)
  let connectionsBehind = false; // the last new connection had waited past the target (the daemon's handoff, the accept queue)
  const body = `overloaded; retry${settings.retryAfter ? ` after ${settings.retryAfter} s` : ' later'}\n`;
  const headers = responseHeaders(settings, body);
  let inflight = 0;
  let shedSinceReport = 0;
  let mark = 0; // when the timer or a check phase last ran (ms)
  let pendingLate = 0; // how late the loop was at a mark, for the next turn that reads a request (ms)
  let pendingAt = 0;
  let turnLate = 0; // the same, as the turn in progress took it
  let turnStart = 0; // when the turn in progress read its first request (ms)
  let ticker = null;
  let checkPending = false; // a request was read in this turn: its check phase serves and marks the turn's end
  let turnQueue = []; // the requests this turn read, for its check phase: {server, emit, args, req, res, readAt, waitBase, backlog, kept}
  let toServe = []; // the requests of the batch being decided that were admitted, in order
  let servedOfBatch = 0;
  let costEstimate = 0; // what serving one request takes the loop (ms, a moving average)
  let idleTicks = 0; // ticks since the last request: a blocked loop is one tick, not idleness
  let lastShed = 0;
  let episode = null; // {since, shed, worst}
  let quietTimer = null;
  /** @type {(shedding: boolean) => void} */
  let onEpisode = () => {};

  // A mark measures the stretch since the one before, less TICK_MS (the most an idle wait
  // for the timer adds). The worst lateness is kept for the next turn that reads a request,
  // or for TICK_MS when none does (a turn that polled and read nothing had none waiting).
  const markTurn = () => {
    const now = clock();
    const late = Math.max(0, now - mark - TICK_MS);
    mark = now;
    if (late >= pendingLate || now - pendingAt >= TICK_MS) {
      pendingLate = late;
      pendingAt = now;
    }
  };
  const onCheck = () => {
    checkPending = false;
    markTurn();
  };
  const tick = () => {
    markTurn();
    if (++idleTicks > IDLE_TICKS) {
      clearInterval(ticker);
      ticker = null;
    }
  };
  /** How long the turn in progress has run (ms), less TICK_MS. */
  const liveLate = (now) => Math.max(0, now - mark - TICK_MS);

  /** The loop's delay bound, if `late` (ms) is over it: its figures, for the log; or null. */
  const overDelay = (late) =>
    settings.maxLoopDelay && late > settings.maxLoopDelay ? `loop delay ${Math.round(late)} ms, max_loop_delay ${settings.maxLoopDelay} ms` : null;
  /**
   * Which bound the worker is over (its figures, for the log), or null; `late`: the loop's
   * delay (ms); `req`: the request decided (one pipelined behind another of its connection
   * shares that one's place in max_inflight).
   */
  const overBound = (late, req) => {
    if (settings.maxInflight && inflight >= settings.maxInflight && !pipelined(req)) return `${inflight} in flight, max_inflight ${settings.maxInflight}`;
    return overDelay(late);
  };

  /** Notes a request's wait (ms) when first decided, for the standing-queue test. */
  const noteWait = (wait, now) => {
    if (now >= intervalEnd) {
      const perf = require('node:perf_hooks').performance; // its eventLoopUtilization: not in the global's types
      const elu = perf.eventLoopUtilization();
      loopBusy = eluMark !== null && now < intervalEnd + interval && perf.eventLoopUtilization(elu, eluMark).utilization >= BUSY_ELU;
      eluMark = elu;
      overRuns = loopBusy && seen >= MIN_SEEN && minWait > target ? overRuns + 1 : 0; // an idle gap ends a standing queue
      standing = overRuns >= STANDING_INTERVALS;
      minWait = Infinity;
      seen = 0;
      intervalEnd = now + interval;
    }
    if (wait < minWait) minWait = wait;
    seen++;
  };
  /** The queue-wait bound, if `wait` (ms) is over it: its figures, for the log; or null. */
  const overWait = (wait) => {
    if (!settings.maxQueueWait || !loopBusy) return null;
    if (standing && wait > target) return `waited ${Math.round(wait)} ms in a standing queue (over ${Math.round(target)} ms for ${interval} ms)`;
    return wait > settings.maxQueueWait ? `waited ${Math.round(wait)} ms, max_queue_wait ${settings.maxQueueWait} ms` : null;
  };
  /** The accept queue's bound, if the connection of a request found it not emptied past the target (ms). */
  const overBacklog = (age) =>
    settings.maxQueueWait && loopBusy && age > target ? `the accept queue had not emptied for ${Math.round(age)} ms, over ${Math.round(target)} ms` : null;
  /**
   * A turn holds at most the target's worth of requests (ms ahead of this one: a wait
   * the worker's own turn makes, so it is bounded whether or not the loop was busy before):
   * the daemon hands a worker one new connection per turn, so long turns would queue the
   * clients' new connections there (a keep-alive pool grows in a surge). While the new
   * connections have waited past the target (in the daemon's handoff, or in the accept
   * queue under `os`) and the loop was busy, that queue is behind: a turn serves one
   * request of a kept-alive connection (`kept`: not its connection's first), so the queue
   * moves a connection per request served, not per target's worth of them (the first
   * seconds of a surge on keep-alive clients). The first requests of new connections keep
   * the target's budget: they are that queue, moving.
   */
  const overTurn = (ahead, kept) => {
    const budget = kept && loopBusy && connectionsBehind ? 0 : target;
    return settings.maxQueueWait && ahead > budget ? `${Math.round(ahead)} ms of requests ahead in this turn, over ${Math.round(budget)} ms` : null;
  };
  /** How long a request read at item.readAt has waited by `t` (ms). */
  const waitOf = (item, t) => item.waitBase + (t - item.readAt);
  /** How late the loop is now (ms): what a connection accepted by the kernel (os) waited there. */
  const lateNow = (now) => (ticker ? Math.max(checkPending ? turnLate : pendingLate, liveLate(now)) : 0);
  /** A connection reached a server: how long it waited before this worker saw it. */
  const connected = (server, socket, now) => {
    const at = handedAt;
    handedAt = null;
    const handoff = at === null ? lateNow(now) : Date.now() - at;
    if (!socket || typeof socket !== 'object') return;
    socket[HANDOFF] = handoff > 0 && handoff < MAX_HANDOFF_MS ? handoff : 0;
    if (at === null) socket[BACKLOG] = acceptedHere(server, now);
    connectionsBehind = (at === null ? socket[BACKLOG] : handoff) > target;
  };

  // The servers whose accept queue each turn has found non-empty so far (ACCEPT_RUN).
  const runs = new Set();
  let runCheckPending = false;
  /** The end of a turn: a server that accepted nothing in it found its queue empty. */
  const endAcceptTurn = () => {
    runCheckPending = false;
    for (const server of runs) {
      const run = server[ACCEPT_RUN];
      if (run.hit) run.hit = false;
      else {
        server[ACCEPT_RUN] = null;
        runs.delete(server);
        connectionsBehind = false; // its queue is empty
      }
    }
    // The next turn is looked at too, whether or not it accepts: that is how a run ends.
    if (runs.size) scheduleRunCheck();
  };
  const scheduleRunCheck = () => {
    if (runCheckPending) return;
    runCheckPending = true;
    setImmediate(endAcceptTurn);
  };
  /** This worker accepted a connection of `server` itself: how long its queue has not emptied (ms). */
  const acceptedHere = (server, now) => {
    scheduleRunCheck();
    const run = server[ACCEPT_RUN];
    if (run) {
      run.hit = true;
      return now - run.since;
    }
    server[ACCEPT_RUN] = { since: now, hit: true };
    runs.add(server);
    return 0;
  };

  /**
   * A request was read (with max_loop_delay): the first of a turn takes the last turn's
   * delay and schedules the turn's check phase, which decides them all and marks the
   * turn's end. The timer runs from the first request after an idle stretch.
   */
  const readRequest = (now) => {
    if (!ticker) {
      mark = now;
      pendingLate = 0;
      ticker = setInterval(tick, TICK_MS);
      ticker.unref();
    }
    if (!checkPending) {
      checkPending = true;
      setImmediate(drainTurn);
      turnLate = pendingLate;
      pendingLate = 0;
      turnStart = now;
    }
  };
  /**
   * The loop's delay as the turn in progress sees it (ms): the last turn's, or this one's
   * so far if longer. Since this turn read its first request the loop has been busy (the
   * requests served before), so no idle wait is allowed for in that part.
   */
  const turnDelay = (now) => Math.max(turnLate, liveLate(now), now - turnStart);

  const startEpisode = (now, why) => {
    episode = { since: now, shed: 0, worst: 0 };
    log(`superd overload: shedding new requests with ${settings.status} (${why})\n`);
    quietTimer = setInterval(() => {
      const t = clock();
      if (t - lastShed < QUIET_MS || overBound(ticker ? Math.max(pendingLate, liveLate(t)) : 0)) return;
      clearInterval(quietTimer);
      const e = episode;
      episode = null;
      log(`superd overload: stopped shedding after ${((lastShed - e.since) / 1000).toFixed(1)} s; ${e.shed} requests shed (worst loop delay ${Math.round(e.worst)} ms; ${inflight} in flight)\n`);
      onEpisode(false);
    }, QUIET_MS / 4);
    quietTimer.unref();
    onEpisode(true);
  };

  /** Answers `res` with the shed response. */
  const shed = (res, now, why, late) => {
    shedSinceReport++;
    lastShed = now;
    if (!episode) startEpisode(now, why);
    episode.shed++;
    episode.worst = Math.max(episode.worst, late);
    res[SHED] = true;
    res.writeHead(settings.status, headers);
    res.end(body);
  };

  /**
   * Admits one request: the app's listeners see it now; its 'close' ends its flight. It
   * counts in flight (max_inflight) once its body has come, as CPU work and not a client
   * still sending; a request pipelined behind another of its connection does not count.
   */
  const admit = (item) => {
    const { req, res } = item;
    const socket = req?.socket;
    const behind = pipelined(req);
    if (socket) socket[OPEN] = (socket[OPEN] ?? 0) + 1;
    let counted = false;
    let closed = false;
    const count = () => {
      if (counted || closed) return;
      counted = true;
      inflight++;
    };
    if (!behind) {
      if (!req || bodyDone(req)) count();
      else {
        const push = req.push;
        req.push = function superdBodyEnd(chunk) {
          if (chunk === null) count();
          return push.apply(this, arguments);
        };
      }
    }
    res.once('close', () => {
      closed = true;
      if (counted) inflight--;
      if (socket) socket[OPEN]--;
    });
  };
  /** Runs the app's listeners for an admitted request, and learns what one costs the loop. */
  const serve = (item) => {
    const t0 = clock();
    item.emit.apply(item.server, item.args);
    const cost = clock() - t0;
    costEstimate = costEstimate ? costEstimate + (cost - costEstimate) * COST_WEIGHT : cost;
  };

  /**
   * The check phase of a turn that read requests: they were all read before any was
   * served, so the ones that would wait past the bound behind the ones admitted before
   * them (costEstimate each) are refused first, at once, and then the admitted ones are
   * served, each checked again against the time the turn has really taken (the estimate
   * may be low). So a refusal waits only for what was running when its request came,
   * not for the requests served ahead of it in its own turn.
   */
  const drainTurn = () => {
    try {
      for (;;) {
        if (toServe.length) {
          const item = toServe.shift();
          const t = clock();
          const late = turnDelay(t);
          const why = servedOfBatch++ > 0 && (overDelay(late) || overWait(waitOf(item, t)));
          if (why) shed(item.res, t, why, late);
          else serve(item);
          continue;
        }
        if (!turnQueue.length) break;
        // The requests read since the last batch (more come only from the app's own
        // listeners, e.g. a pipelined request parsed once a response ends).
        const items = turnQueue;
        turnQueue = [];
        servedOfBatch = 0;
        const now = clock();
        const late = turnDelay(now);
        for (const item of items) {
          // What this one would wait behind the ones admitted ahead of it; none for one
          // pipelined behind another of its connection: it waits for that one anyway.
          const ahead = pipelined(item.req) ? 0 : toServe.length * costEstimate;
          const wait = waitOf(item, now);
          if (settings.maxQueueWait) noteWait(wait, now); // the standing-queue test is max_queue_wait's alone
          const why = overBound(late + ahead, item.req) || overWait(wait + ahead) || overBacklog(item.backlog) || overTurn(ahead, item.kept);
          if (why) shed(item.res, now, why, late);
          else {
            admit(item);
            toServe.push(item);
          }
        }
      }
    } finally {
      // A listener that threw leaves the rest for another check phase, not stranded.
      if (toServe.length || turnQueue.length) setImmediate(drainTurn);
      else onCheck();
    }
  };

  /** Puts the decision in front of server's 'request' listeners (once per server). */
  function guard(server) {
    if (server[GUARDED]) return;
    server[GUARDED] = true;
    for (const [key, value] of Object.entries(senderTimeouts(settings.requestTimeout))) if (server[key] === NODE_TIMEOUTS[key]) server[key] = value;
    const emit = server.emit;
    server.emit = function superdOverloadEmit(event, req, res) {
      // The wait before this worker saw a connection matters only to max_queue_wait.
      if (event === 'connection' && settings.maxQueueWait) connected(this, req, clock());
      if (!REQUEST_EVENTS.has(event) || !res) return emit.apply(this, arguments);
      const now = clock();
      idleTicks = 0;
      if (timed) {
        // Decided in this turn's check phase, with every request the turn read. Its wait so
        // far: its connection's (the first request on it) and the loop's lateness this turn.
        readRequest(now);
        const socket = req?.socket;
        const handoff = socket?.[HANDOFF] ?? 0;
        const backlog = socket?.[BACKLOG] ?? 0;
        if (handoff) socket[HANDOFF] = 0;
        if (backlog) socket[BACKLOG] = 0;
        const kept = Boolean(socket?.[READ_BEFORE]);
        if (socket) socket[READ_BEFORE] = true;
        turnQueue.push({ server: this, emit, args: arguments, req, res, readAt: now, waitBase: handoff + turnLate, backlog, kept });
        return true;
      }
      const why = overBound(0, req);
      if (why) {
        shed(res, now, why, 0);
        return true;
      }
      admit({ req, res });
      return emit.apply(this, arguments);
    };
  }

  return {
    guard,
    /** For the metrics report: {shedding, shed (since the last report), inflight}. */
    figures() {
      const shedNow = shedSinceReport;
      shedSinceReport = 0;
      return { shedding: episode !== null, shed: shedNow, inflight };
    },
    /** The daemon is handing this worker a connection it accepted at `at` (ms since the epoch). */
    handing(at) {
      handedAt = at;
    },
    /** fn(shedding) at the start and the end of each episode. */
    onEpisode(fn) {
      onEpisode = fn;
    },
  };
}

/** Whether a request's body has all come (or it has none): it can be CPU work now. */
function bodyDone(req) {
  if (req.complete) return true;
  const h = req.headers ?? {};
  return h['transfer-encoding'] === undefined && !(Number(h['content-length']) > 0);
}

/**
 * Under round-robin, the daemon stamps each connection it hands over with the time it
 * accepted it ('newconn', superdAcceptedAt: the seam in lib/master/process/cluster-
 * internals): read before cluster's own listener, which emits the server's 'connection'.
 */
function watchHandoffs(shedder) {
  if (typeof process.send !== 'function') return;
  // Node's private event of cluster's messages: not in @types/node.
  /** @type {import('node:events').EventEmitter} */ (/** @type {unknown} */ (process)).prependListener('internalMessage', (m) => {
    if (m !== null && typeof m === 'object' && m.cmd === 'NODE_CLUSTER' && m.act === 'newconn') {
      shedder.handing(typeof m.superdAcceptedAt === 'number' ? m.superdAcceptedAt : null);
    }
  });
}

/** Guards every server that listens from now on (net.Server#listen, as drain.cjs tracks them). */
function guardServers(shedder) {
  const net = require('node:net');
  const listen = net.Server.prototype.listen;
  net.Server.prototype.listen = function superdOverloadListen(...args) {
    shedder.guard(this);
    return listen.apply(this, args);
  };
}

const settings = parseSettings(process.env.SUPER_OVERLOAD);
delete process.env.SUPER_OVERLOAD; // not for the app's own children
const shedder = settings && createShedder(settings);
if (shedder) {
  guardServers(shedder);
  if (settings.maxQueueWait) watchHandoffs(shedder);
}

module.exports = { shedder };
