'use strict';
// Preloaded into every Node worker with --require (never wrapped around the app, so
// process.argv[1] stays the user's script and ESM/CJS apps both run unchanged).
// Kept tiny: it must cost the app nothing it can measure.
const AGENT = Symbol.for('superd.agent');

require('./log-format.cjs');

if (!globalThis[AGENT]) {
  const drain = require('./drain.cjs');
  const send = (m) => {
    if (typeof process.send === 'function' && process.connected) process.send(m);
  };

  // Set by the daemon for a reload replacement with wait_ready under round-robin.
  if (process.env.SUPER_DEFER_TRAFFIC === '1') drain.deferTraffic();
  delete process.env.SUPER_DEFER_TRAFFIC; // not for the app's own children

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
      if (markReady()) send({ cmd: 'super:ready' });
    },
    onShutdown: drain.onShutdown,
  };

  if (typeof process.send === 'function') {
    // PM2 apps say process.send('ready'): that also lets traffic in.
    const origSend = process.send;
    process.send = function send(message, ...rest) {
      if (message === 'ready') markReady();
      return origSend.call(this, message, ...rest);
    };
    // Daemon -> agent: {cmd: 'super:shutdown'} starts the drain; {cmd: 'super:admit'} lets
    // a deferred worker that missed listen_timeout take traffic anyway. Only in cluster workers:
    // their IPC channel keeps them alive anyway, while in a fork-mode child a 'message'
    // listener would keep a script that is done from exiting (the daemon sends those
    // kill_signal directly). Envelopes never start with NODE_: Node routes those to
    // 'internalMessage', never to 'message'.
    if (require('node:cluster').isWorker) {
      process.on('message', (m) => {
        if (m === null || typeof m !== 'object') return;
        if (m.cmd === 'super:shutdown') drain.drain().then((hookErrors) => send({ cmd: 'super:drained', hookErrors }));
        else if (m.cmd === 'super:admit') drain.admit();
      });
    }
  }
}
require('./metrics.cjs');
