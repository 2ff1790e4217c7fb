'use strict';
// Preloaded into every Node worker with --require (never wrapped around the app, so
// process.argv[1] stays the user's script and ESM/CJS apps both run unchanged).
// Kept tiny: it must cost the app nothing it can measure.
const AGENT = Symbol.for('superd.agent');

if (!globalThis[AGENT]) {
  globalThis[AGENT] = {
    app: process.env.SUPER_APP_NAME,
    slot: Number(process.env.SUPER_SLOT),
    /** Tells the daemon the app is ready (ready_on: ready / wait_ready: true). */
    ready() {
      if (typeof process.send === 'function' && process.connected) process.send({ cmd: 'super:ready' });
    },
  };
}
