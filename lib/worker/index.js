// Public API for apps run by superd: `import { ready } from 'superd/worker'`.
// Outside superd every function is a harmless no-op, so apps run the same without it.
const AGENT = Symbol.for('superd.agent');
const agent = () => globalThis[AGENT];

/** True when this process is a worker started by superd. */
export const isSuperd = () => Boolean(agent());

/** This worker's slot (0..N-1), stable across restarts; null outside superd. */
export const slot = () => (agent() ? agent().slot : null);

/** This worker's app name; null outside superd. */
export const appName = () => (agent() ? agent().app : null);

/**
 * Tells superd this worker is ready to serve (with `wait_ready: true` / `ready_on: ready`).
 * Same as PM2's `process.send('ready')`, which superd also accepts.
 */
export function ready() {
  agent()?.ready();
}
