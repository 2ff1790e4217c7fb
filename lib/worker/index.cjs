'use strict';
// Public API for apps run by superd: `import { ready } from 'superd/worker'` or
// `require('superd/worker')`. Reachable from any app the daemon runs, even one that has
// not installed superd (expose-api.cjs), and as globalThis.superd.
// Outside superd every function is a harmless no-op, so apps run the same without it.
// CommonJS so that both module systems load it on every supported Node.
const AGENT = Symbol.for('superd.agent');
const agent = () => globalThis[AGENT];

/** True when this process is a worker started by superd. */
exports.isSuperd = () => Boolean(agent());

/** This worker's slot (0..N-1), stable across restarts; null outside superd. */
exports.slot = () => (agent() ? agent().slot : null);

/** This worker's app name; null outside superd. */
exports.appName = () => (agent() ? agent().app : null);

/**
 * Tells superd this worker is ready to serve (with `wait_ready: true` / `ready_on: ready`).
 * Same as PM2's `process.send('ready')`, which superd also accepts.
 */
exports.ready = () => {
  agent()?.ready();
};

/**
 * Registers fn (may be async) to run when superd retires this worker (reload, stop,
 * scale down), after its servers have finished every in-flight request and closed
 * their connections: close database pools, flush buffers. The worker is then stopped
 * with kill_signal; drain_timeout bounds the whole drain. No-op outside superd.
 */
exports.onShutdown = (fn) => {
  agent()?.onShutdown(fn);
};
