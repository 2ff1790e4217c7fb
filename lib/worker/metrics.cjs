'use strict';
// Worker health, measured from inside and sent to the daemon as one small IPC message
// (METRICS, {data}): when the daemon asks (REPORT: its liveness ping, `ls`, a scrape), and
// once per interval while someone watches (WATCH .. UNWATCH: `monit`, a "metrics"
// subscriber). Loaded by agent.cjs in every worker.
//
// Cost (docs/measurements.md): an idle, unwatched worker runs no timer of ours at all.
// The event-loop delay histogram (monitorEventLoopDelay) ticks its own 20 ms timer, 50
// wakes a second: it runs only while someone watches or the loop is busy. An HTTP request,
// or a report that finds the loop busy (ELU), turns it on; a check every SETTLE_MS that
// finds the loop idle and nobody watching turns it off (an idle loop's delay is 0).
// HTTP timing uses diagnostics_channel only: no function of the app or of node:http is
// wrapped. Every timer is unref'd: metrics never keep a worker alive.
// node:perf_hooks, the loop's histogram and the response times' (response-times.cjs) are
// loaded and made on first use (a request, a report, a watch), not while the worker
// boots: each crash restart and each reload's replacement reaches listening without them.
const dc = require('node:diagnostics_channel');
const { FROM_AGENT, TO_AGENT } = require('../ipc/agent-protocol.cjs');
const { send } = require('./daemon-channel.cjs');
// Overload shedding (overload.cjs) is loaded only for an app with `overload:`.
const connections = require('./connections.cjs');
const shedder = process.env.SUPER_OVERLOAD ? require('./overload.cjs').shedder : null;
const SHED = Symbol.for('superd.shed'); // on a response overload.cjs answered: not the app's

const interval = Number(process.env.SUPER_METRICS_INTERVAL ?? 1000);
const started = Symbol('superd.requestStart');
const RESOLUTION = 20; // ms
const SETTLE_MS = 5000; // how long the loop must idle, unwatched, before the histogram stops
const BUSY_ELU = 0.01; // a loop busier than this (fraction of the time) is measured
const round2 = (x) => Math.round(x * 100) / 100;
// The histogram holds the time between two ticks of its own timer, resolution included:
// the delay is what exceeds the resolution.
const delay = (ns) => (Number.isFinite(ns) ? Math.max(0, round2(ns / 1e6 - RESOLUTION)) : 0);
let perfHooks = null;
const perf = () => (perfHooks ??= require('node:perf_hooks'));
const clock = () => perf().performance.now();
/** The loop's utilization since `since` (an earlier result), or since it started (null). */
const eluSince = (since) => perf().performance.eventLoopUtilization(since);

function startMetrics() {
  let loop = null; // the delay histogram, made by its first user
  const loopHistogram = () => (loop ??= perf().monitorEventLoopDelay({ resolution: RESOLUTION }));
  let measuring = false;
  let settleTimer = null;
  let settleElu = null;
  let watchTimer = null;

  // loop.reset() (and enable()) also forgets when the histogram last ticked, so it records
  // nothing for the delay that ends at its next tick. Two gaps would then go unseen: a
  // block that ends just before a report (a watched report's timer runs before the
  // histogram's), and a block that starts just after one (or just after enable()). The
  // report's own lateness covers the first; a short chain of timers, from each reset
  // until the histogram records again, the second.
  let bridged = 0; // longest delay seen by that chain since the last report (ms)
  let bridging = false;
  const bridge = () => {
    if (bridging) return;
    bridging = true;
    let from = clock();
    const step = () => {
      const now = clock();
      bridged = Math.max(bridged, now - from - RESOLUTION);
      from = now;
      if (loop.count > 0 || !measuring) bridging = false;
      else setTimeout(step, RESOLUTION).unref();
    };
    setTimeout(step, RESOLUTION).unref();
  };

  /** Starts the histogram (the loop has work, or someone watches) until the loop settles. */
  const measure = () => {
    if (measuring) return;
    measuring = true;
    // What it holds is from before an idle stretch; its first tick records nothing (like
    // after a reset), so the bridge covers a block that starts right now (a request).
    loopHistogram().reset();
    loop.enable();
    bridge();
    settleElu = eluSince(null);
    settleTimer = setInterval(() => {
      const busy = eluSince(settleElu).utilization;
      settleElu = eluSince(null);
      if (watchTimer || busy > BUSY_ELU) return;
      measuring = false;
      loop.disable();
      clearInterval(settleTimer);
    }, SETTLE_MS);
    settleTimer.unref();
  };

  let elu = null; // the first report's is since the loop started
  let last = 0; // the clock's origin: the process started
  let reported = false;

  // HTTP: requests finished and their response times (µs) since the last report.
  /** @type {import('./response-times.cjs').ResponseTimes|null} */
  let responseTimes = null; // made at the first response (loaded then: response-times.cjs)
  let requests = 0;
  let responseMicros = 0; // their sum (µs): the daemon keeps the summary's _sum
  // Requests in flight, as a time average over the report's interval (autoscale's
  // `inflight`): the count integrated at each change, so a burst between two reports counts.
  let inflight = 0;
  let inflightArea = 0; // request-ms since the last report
  let inflightAt = null; // the clock is read at the first request, not at boot (node:perf_hooks loads then)
  const inflightStep = (by, now = clock()) => {
    inflightArea += inflight * (now - (inflightAt ?? now));
    inflightAt = now;
    inflight += by;
  };
  // A response leaves the count at its finish (the clock read then serves both figures), or
  // at its 'close' if it closed unfinished (its client left; pipelined requests behind it).
  // It emits 'close' once and is dropped after: one shared listener, added with on(), costs
  // no closure and no removal (once() makes both). response[started]: the start (> 0) while
  // in flight, minus the start once it closed unfinished (a finish may still follow: its
  // write's callback), 0 once its finish is counted.
  /** @this {any} a ServerResponse */
  function requestClosed() {
    const t0 = this[started];
    if (!(t0 > 0)) return;
    this[started] = -t0;
    inflightStep(-1);
  }
  // Per request: one clock read at the start, one at the finish, for both figures.
  dc.subscribe('http.server.request.start', ({ response }) => {
    const now = clock();
    response[started] = now;
    inflightStep(1, now);
    response.on('close', requestClosed);
    measure();
  });
  dc.subscribe('http.server.response.finish', ({ response }) => {
    const t0 = response[started];
    if (!t0) return; // not started here (undefined), or counted (0)
    const now = clock();
    response[started] = 0;
    if (t0 > 0) inflightStep(-1, now);
    if (shedder && response[SHED]) return; // a shed request is counted by overload.cjs
    requests++;
    const us = Math.max(1, Math.round((now - Math.abs(t0)) * 1000));
    (responseTimes ??= new (require('./response-times.cjs').ResponseTimes)()).record(us);
    responseMicros += us;
  });

  /** Sends what happened since the last report; `late`: how late a watched report's timer ran (ms). */
  const report = (late = 0) => {
    if (typeof process.send !== 'function' || !process.connected) return;
    const now = clock();
    const covered = now - last; // ms since the last report
    const seconds = covered / 1000;
    inflightStep(0);
    const inflightMean = covered > 0 ? inflightArea / covered : inflight;
    inflightArea = 0;
    last = now;
    // The delay the histogram missed is one sample: its max, and its p99 too while the
    // interval holds fewer than 100 samples (the p99 of fewer is their largest).
    const gap = Math.max(0, round2(late), round2(bridged));
    const missed = { max: gap, p99: loopHistogram().count < 99 ? gap : 0 };
    const eluNow = eluSince(elu);
    elu = eluSince(null);
    // The first report's ELU is the app's boot: not a sign of work to come.
    if (reported && eluNow.utilization > BUSY_ELU) measure();
    reported = true;
    const mem = process.memoryUsage();
    const cpu = process.cpuUsage();
    const resources = {};
    for (const type of process.getActiveResourcesInfo()) resources[type] = (resources[type] ?? 0) + 1;
    const data = {
      loop: { p50: delay(loop.percentile(50)), p99: Math.max(delay(loop.percentile(99)), missed.p99), max: Math.max(delay(loop.max), missed.max), mean: delay(loop.mean) },
      elu: Math.round(eluNow.utilization * 1000) / 1000,
      ms: Math.round(covered), // the time this report covers: the daemon weighs its figures by it
      heap: { used: mem.heapUsed, total: mem.heapTotal },
      rss: mem.rss,
      // CPU time since the process started (µs, user and system): with rss, what the daemon
      // reads from /proc for a worker that has no child, so it need not (process-sampler.js).
      cpu_us: cpu,
      resources,
      http: {
        rps: seconds > 0 ? Math.round((requests / seconds) * 10) / 10 : 0,
        p99: requests && responseTimes ? Math.round(responseTimes.percentile(99)) / 1000 : null,
        requests, // since the last report: the daemon sums them
        sum_us: responseMicros, // their response times, summed the same way
        inflight: Math.round(inflightMean * 100) / 100, // requests in flight, averaged over the interval
      },
      overload: shedder ? shedder.figures() : null, // with the app's `overload:` key
      connections: connections.counts(), // open now, of the servers the agent tracks (connections.cjs)
    };
    loop.reset();
    bridged = 0;
    if (measuring) bridge();
    responseTimes?.reset();
    requests = 0;
    responseMicros = 0;
    // A full channel means the daemon is behind: drop this sample rather than queue it.
    // writeQueueSize: the IPC pipe's bytes not yet written (libuv's; not in Node's typings).
    if (process.channel && /** @type {any} */ (process.channel).writeQueueSize > 65536) return;
    send(FROM_AGENT.METRICS, { data });
  };

  // Watched reports are sent on the wall clock's multiples of the interval, the same
  // moments in every worker of the host: the daemon then reads a burst of reports in a few
  // wakeups of its event loop instead of one wakeup per worker spread over the interval,
  // which is most of what a watcher costs it (docs/measurements.md, the dashboard's cost).
  let due = 0;
  const schedule = () => {
    const wait = interval - (Date.now() % interval);
    due = clock() + wait;
    watchTimer = setTimeout(() => {
      const late = clock() - due;
      schedule();
      report(late);
    }, wait);
    watchTimer.unref();
  };
  const watch = () => {
    if (watchTimer) return;
    measure();
    schedule();
  };
  const unwatch = () => {
    clearTimeout(watchTimer);
    watchTimer = null;
  };
  // The daemon hears at once when shedding starts and stops (its /readyz).
  shedder?.onEpisode(() => report());
  return { [TO_AGENT.REPORT]: () => report(), [TO_AGENT.WATCH]: watch, [TO_AGENT.UNWATCH]: unwatch };
}

// The agent's handlers of the daemon's metrics messages (agent.cjs's dispatch table).
// SUPER_METRICS_INTERVAL=0 turns worker metrics off; without an IPC channel there is
// nobody to tell (a Node script started outside superd with the agent preloaded).
const off = () => {};
const handlers = interval > 0 && typeof process.send === 'function'
  ? startMetrics()
  : { [TO_AGENT.REPORT]: off, [TO_AGENT.WATCH]: off, [TO_AGENT.UNWATCH]: off };

module.exports = { handlers };
