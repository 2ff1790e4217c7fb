// The one bounded poll of the tests, for what sends no event to wait on (a file, a
// terminal screen, a process table). Where the daemon sends an event, wait on it instead
// (watchEvents in harness.js).

/**
 * Calls `fn` every `every` ms until it returns a truthy value, and resolves with that value.
 * A missing file (ENOENT: a rotation renamed it, its writer has not created it yet) counts
 * as not yet. Rejects after `timeout` ms with `what`, and with `last()` when given (what was
 * seen instead).
 * @template T
 * @param {() => T | Promise<T>} fn
 * @param {{timeout?: number, what?: string, every?: number, last?: () => string}} [opts]
 * @returns {Promise<T>}
 */
export async function eventually(fn, opts = {}) {
  if (typeof opts !== 'object') throw new TypeError('eventually(fn, {timeout, what, every, last}): the options are an object');
  const { timeout = 30000, what = 'condition', every = 50, last } = opts;
  const deadline = Date.now() + timeout;
  for (;;) {
    const v = await Promise.resolve().then(fn).catch((err) => {
      if (err.code === 'ENOENT') return false;
      throw err;
    });
    if (v) return /** @type {T} */ (v);
    if (Date.now() > deadline) throw new Error(`timed out after ${timeout} ms waiting for ${what}${last ? `; last seen:\n${last()}` : ''}`);
    await new Promise((r) => setTimeout(r, every));
  }
}
