'use strict';
// The response times of one report interval (µs), for their p99: the buckets of Node's own
// histogram (perf_hooks.createHistogram(), an HdrHistogram with 3 significant figures: exact
// up to 2047, then 1,024 buckets per power of two) and its percentile, kept in a typed array.
// Recording is an increment: Node's record() validates its argument and crosses into C++ on
// every request, a cost per request the profiles showed (docs/measurements.md, issue 42).
const EXACT = 2048; // below this a bucket is one µs wide
const PER_OCTAVE = 1024;
const MAX = 2 ** 32 - 1; // µs (71 minutes): longer times count as this

/** The bucket of `us` (an integer >= 1). */
function bucketOf(us) {
  if (us < EXACT) return us;
  const shift = 21 - Math.clz32(us); // floor(log2(us)) - 10: the octave's bucket width is 2^shift
  return EXACT + (shift - 1) * PER_OCTAVE + ((us >>> shift) - PER_OCTAVE);
}

/** The highest value bucket `i` holds, as HdrHistogram reports a percentile. */
function highestOf(i) {
  if (i < EXACT) return i;
  const shift = Math.floor((i - EXACT) / PER_OCTAVE) + 1;
  const sub = ((i - EXACT) % PER_OCTAVE) + PER_OCTAVE;
  return (sub + 1) * 2 ** shift - 1;
}

class ResponseTimes {
  constructor() {
    this.counts = new Uint32Array(bucketOf(MAX) + 1);
    this.total = 0;
    this.top = 0; // the highest bucket used since the last reset
  }

  /** @param {number} us  an integer >= 1 */
  record(us) {
    const i = bucketOf(us > MAX ? MAX : us);
    this.counts[i]++;
    this.total++;
    if (i > this.top) this.top = i;
  }

  /** The value at `percentile` (0-100), as Node's histogram.percentile() gives it; 0 when empty. */
  percentile(percentile) {
    if (this.total === 0) return 0;
    const rank = Math.max(1, Math.floor((Math.min(percentile, 100) / 100) * this.total + 0.5));
    let seen = 0;
    for (let i = 0; i <= this.top; i++) {
      seen += this.counts[i];
      if (seen >= rank) return highestOf(i);
    }
    return highestOf(this.top);
  }

  reset() {
    if (this.total === 0) return;
    this.counts.fill(0, 0, this.top + 1);
    this.total = 0;
    this.top = 0;
  }
}

module.exports = { ResponseTimes };
