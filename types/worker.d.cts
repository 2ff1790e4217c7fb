// Types of `superd/worker` (lib/worker/index.cjs): the API for apps run by superd. Every
// function is a harmless no-op outside superd.

/** True when this process is a worker started by superd. */
export declare function isSuperd(): boolean;

/** This worker's slot (0..N-1), stable across restarts; null outside superd. */
export declare function slot(): number | null;

/** This worker's app name; null outside superd. */
export declare function appName(): string | null;

/**
 * Tells superd this worker is ready to serve (with `wait_ready: true` / `ready_on: ready`).
 * Same as PM2's `process.send('ready')`, which superd also accepts.
 */
export declare function ready(): void;

/**
 * Registers `fn` to run when superd retires this worker (reload, stop, scale down), after
 * its servers have finished every in-flight request; `drain_timeout` bounds the drain.
 */
export declare function onShutdown(fn: () => void | Promise<void>): void;
