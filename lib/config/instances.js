// How many workers an app gets, following PM2's `instances` rules.

/**
 * Resolve an `instances` spec against the CPUs the daemon may use.
 *   N > 0      -> N
 *   0, "max"   -> cpus (every CPU)
 *   -N         -> cpus - N (leave N CPUs free); must leave at least 1 worker
 * Unlike PM2, which silently rounds a result below 1 up to 1, superd refuses it:
 * a file that asks for "all but 3 CPUs" on a 2-CPU host is a mistake worth hearing about.
 * @param {*} spec  as written in the file
 * @param {number} cpus  CPUs available (integer >= 1)
 * @returns {number} an integer >= 1
 * @throws {RangeError} with a one-line reason when the spec is not an integer / "max" or leaves no worker
 */
export function resolveInstances(spec, cpus) {
  if (spec === 'max' || spec === 0) return cpus;
  if (!Number.isInteger(spec)) {
    throw new RangeError(`must be a positive integer, "max", 0 or a negative integer (got ${JSON.stringify(spec)})`);
  }
  if (spec > 0) return spec;
  const n = cpus + spec;
  if (n < 1) throw new RangeError(`${spec} with ${cpus} CPU${cpus === 1 ? '' : 's'} leaves no worker`);
  return n;
}

/**
 * Whether an `instances` spec counts CPUs (`max`, 0, -N, or { min, max } with one of them).
 * @param {unknown} spec  as written
 */
export function countsCpus(spec) {
  if (spec !== null && typeof spec === 'object') return countsCpus(/** @type {any} */ (spec).min) || countsCpus(/** @type {any} */ (spec).max);
  return spec === 'max' || (Number.isInteger(spec) && /** @type {number} */ (spec) <= 0);
}
