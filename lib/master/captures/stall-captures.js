// The last stall capture of each worker process, for `ls`, `describe` and monit (through
// the slot's snapshot). Held per process: it goes with the worker.
const captures = new WeakMap();

/** @param {object} proc  a WorkerProcess  @param {{file: string, at: number, loop_p99_ms: number}} capture */
export function recordStallCapture(proc, capture) {
  captures.set(proc, capture);
}

/** The last stall capture of worker process `proc`, or undefined. */
export const lastStallCapture = (proc) => captures.get(proc);
