// The search for the highest request rate an instance count serves within the objective:
// double the rate from `start` until a probe fails, then bisect between the highest rate
// that passed and the lowest that failed, until they are within 5 % (or 1 r/s). Bounded
// three ways: at most `probes` probes, never above `maxRate`, and no probe once
// `canProbe()` says the total time is spent. Pure apart from the probe it is given.

/**
 * @param {object} o
 * @param {(rate: number) => Promise<{ok: boolean}>} o.probe  loads the copy at `rate` r/s for one step
 * @param {number} o.start  the first rate tried
 * @param {number} o.maxRate
 * @param {number} o.probes  the most probes
 * @param {() => boolean} [o.canProbe]  false once the total time bound would be passed
 * @param {number} [o.precision]
 * @returns {Promise<{max_rps: number, best: object|null, failed: object|null, probes: object[], bound: 'rate'|'probes'|'time'|null}>}
 *   best: the probe at max_rps; failed: the probe at the lowest failing rate; bound: what stopped it before it converged
 */
export async function searchMaxRate({ probe, start, maxRate, probes, canProbe = () => true, precision = 0.05 }) {
  let lo = 0;
  let hi = null;
  let best = null;
  let failed = null;
  /** @type {'rate'|'probes'|'time'|null} */
  let bound = null;
  const tried = [];
  let rate = Math.max(1, Math.min(start, maxRate));
  for (;;) {
    if (tried.length >= probes) {
      bound = 'probes';
      break;
    }
    if (!canProbe()) {
      bound = 'time';
      break;
    }
    const r = await probe(rate);
    tried.push(r);
    if (r.ok) {
      lo = rate;
      best = r;
    } else {
      hi = rate;
      failed = r;
    }
    if (hi === null) {
      if (rate >= maxRate) {
        bound = 'rate';
        break;
      }
      rate = Math.min(rate * 2, maxRate);
    } else {
      if (hi - lo <= Math.max(1, lo * precision)) break;
      rate = Math.floor((lo + hi) / 2);
    }
  }
  return { max_rps: lo, best, failed, probes: tried, bound };
}
