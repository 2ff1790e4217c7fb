'use strict';
// Preloaded into every Node worker with --require (never wrapped around the app, so
// process.argv[1] stays the user's script and ESM/CJS apps both run unchanged).
// Kept tiny: it must cost the app nothing it can measure.
const AGENT = Symbol.for('superd.agent');

if (!globalThis[AGENT]) {
  const { FROM_AGENT, TO_AGENT, PM2 } = require('../ipc/agent-protocol.cjs');
  const channel = require('./daemon-channel.cjs');
  const logs = require('./log-format.cjs');
  const drain = require('./drain.cjs');
  const metrics = require('./metrics.cjs');

  // Set by the daemon for a reload replacement with wait_ready under round-robin.
  if (process.env.SUPER_DEFER_TRAFFIC === '1') drain.deferTraffic();
  delete process.env.SUPER_DEFER_TRAFFIC; // not for the app's own children
  // Set by the daemon for a fork-mode worker: its TCP ports are sockets the daemon holds.
  const sharedListen = process.env.SUPER_SHARED_LISTEN === '1' && typeof process.send === 'function' ? require('./shared-listen.cjs') : null;
  sharedListen?.install();
  delete process.env.SUPER_SHARED_LISTEN;
  // A cluster worker finishes what it serves when the daemon dies (drain.cjs).
  drain.outliveDaemon(Number(process.env.SUPER_DRAIN_TIMEOUT));
  delete process.env.SUPER_DRAIN_TIMEOUT;

  let isReady = false;
  const markReady = () => {
    if (isReady) return false;
    isReady = true;
    drain.admit();
    return true;
  };

  globalThis[AGENT] = {
    app: process.env.SUPER_APP_NAME,
    slot: Number(process.env.SUPER_SLOT),
    /** Tells the daemon the app is ready (ready_on: ready / wait_ready: true). */
    ready() {
      if (markReady()) channel.send(FROM_AGENT.READY);
    },
    onShutdown: drain.onShutdown,
  };
  require('./expose-api.cjs').exposeApi();

  // sticky: sid / cookie: the daemon read each connection's first bytes (lib/worker/sticky.cjs).
  const stickyHeads = process.env.SUPER_STICKY === 'sid' || process.env.SUPER_STICKY === 'cookie';
  delete process.env.SUPER_STICKY;
  const sticky = stickyHeads ? require('./sticky.cjs') : null;
  sticky?.installSticky((sid) => channel.send(FROM_AGENT.STICKY_SESSION, { sid }));

  if (typeof process.send === 'function') {
    // PM2 apps say process.send('ready'): that also lets traffic in.
    const origSend = process.send;
    const READY = PM2.READY;
    // Also on every cluster message the worker sends (the receipt of each connection the
    // daemon hands it, under round-robin): one comparison, no copy of the arguments.
    process.send = function send(message) {
      if (message === READY) markReady();
      return origSend.apply(this, arguments);
    };
    // The agent's one dispatch table. The daemon sends these to cluster workers only: a
    // fork-mode child is stopped with kill_signal (or PM2's 'shutdown', which is the app's;
    // SHUTDOWN too when its ports are the daemon's sockets, and LISTEN_HANDLE: shared-listen.cjs)
    // and notices a log rotation by itself (log-format.cjs). PROFILE, HEAP and the metrics
    // messages go to every Node worker (captures.cjs loads on first use; metrics.cjs).
    channel.listen({
      [TO_AGENT.SHUTDOWN]: (m) => drain.drain(m.drain_timeout).then((hookErrors) => channel.send(FROM_AGENT.DRAINED, { hookErrors })),
      [TO_AGENT.ADMIT]: drain.admit,
      [TO_AGENT.REBALANCE]: drain.rebalance,
      [TO_AGENT.REOPEN_LOGS]: logs.reopen,
      [TO_AGENT.PROFILE]: (m) => require('./captures.cjs').profile(m),
      [TO_AGENT.HEAP]: (m) => require('./captures.cjs').heap(m),
      [TO_AGENT.LISTEN_REFUSED]: (m) => process.stderr.write(`${String(m.message)}\n`),
      [TO_AGENT.STICKY_PREFIX]: (m) => sticky?.onPrefix(m), // only a sid / cookie app's daemon sends one
      [TO_AGENT.LISTEN_HANDLE]: (m, handle) => (sharedListen ? sharedListen.onHandle(m, handle) : handle?.close()),
      // scheduling: reuseport: a socket of the app's port whose slot has no worker (lent-listen.cjs)
      [TO_AGENT.LEND_LISTEN]: (m, handle) => require('./lent-listen.cjs').onLend(m, handle),
      [TO_AGENT.UNLEND_LISTEN]: (m) => require('./lent-listen.cjs').onUnlend(m),
      ...metrics.handlers,
    });
  }
}
