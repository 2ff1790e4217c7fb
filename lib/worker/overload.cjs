'use strict';
// Overload shedding (the app's `overload:` key, handed over as SUPER_OVERLOAD): while this
// worker is over a bound, each new HTTP request is answered at once with the configured
// status and Retry-After, before the app's 'request' listeners see it, so a client (or
// HAProxy) gets a fast refusal instead of a place in a growing queue. The app's code is
// not changed: each server gets its own `emit` at listen(). The connection stays open: a
// new one would reach the worker only through the daemon's round-robin handoff, which
// waits for a turn of the worker's loop per connection, so under load it would queue there.
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

/** The settings of SUPER_OVERLOAD (ms), or null: off. */
function parseSettings(text) {
  if (!text) return null;
  try {
    const s = JSON.parse(text);
    const bound = (v) => (typeof v === 'number' && v > 0 ? v : null);
    const out = {
      maxLoopDelay: bound(s.max_loop_delay),
      maxInflight: bound(s.max_inflight),
      status: Number.isInteger(s.status) && s.status >= 400 && s.status <= 599 ? s.status : 503,
      retryAfter: typeof s.retry_after === 'number' && s.retry_after > 0 ? Math.ceil(s.retry_after / 1000) : 0,
    };
    return out.maxLoopDelay || out.maxInflight ? out : null;
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
 * @param {{maxLoopDelay: number|null, maxInflight: number|null, status: number, retryAfter: number}} settings
 * @param {object} [o]
 * @param {() => number} [o.clock]  ms, monotonic
 * @param {(line: string) => void} [o.log]
 */
function createShedder(settings, { clock = () => performance.now(), log = (line) => process.stderr.write(line) } = {}) {
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
  let turnQueue = []; // the requests this turn read, for its check phase: {server, emit, args, res}
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
  /** Which bound the worker is over (its figures, for the log), or null; `late`: the loop's delay (ms). */
  const overBound = (late) => {
    if (settings.maxInflight && inflight >= settings.maxInflight) return `${inflight} in flight, max_inflight ${settings.maxInflight}`;
    return overDelay(late);
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

  const done = () => {
    inflight--;
  };

  /** Admits one request: the app's listeners see it now; its 'close' ends its flight. */
  const admit = (item) => {
    inflight++;
    item.res.once('close', done);
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
          const why = servedOfBatch++ > 0 && overDelay(late);
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
          const why = overBound(late + toServe.length * costEstimate);
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
    const emit = server.emit;
    server.emit = function superdOverloadEmit(event, req, res) {
      if (!REQUEST_EVENTS.has(event) || !res) return emit.apply(this, arguments);
      const now = clock();
      idleTicks = 0;
      if (settings.maxLoopDelay) {
        // Decided in this turn's check phase, with every request the turn read.
        readRequest(now);
        turnQueue.push({ server: this, emit, args: arguments, res });
        return true;
      }
      const why = overBound(0);
      if (why) {
        shed(res, now, why, 0);
        return true;
      }
      admit({ res });
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
    /** fn(shedding) at the start and the end of each episode. */
    onEpisode(fn) {
      onEpisode = fn;
    },
  };
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
if (shedder) guardServers(shedder);

module.exports = { shedder };
