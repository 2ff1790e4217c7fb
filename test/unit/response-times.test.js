// The worker's response-time histogram (lib/worker/response-times.cjs) reports the p99 that
// Node's own histogram (perf_hooks.createHistogram(), which it replaced) reports for the
// same values: the same buckets, the same percentile rule.
import test from 'node:test';
import assert from 'node:assert/strict';
import { createHistogram } from 'node:perf_hooks';
import { createRequire } from 'node:module';

const { ResponseTimes } = createRequire(import.meta.url)('../../lib/worker/response-times.cjs');

/** A deterministic pseudo-random generator (xorshift32): the same values on every run. */
function random(seed) {
  let x = seed;
  return () => {
    x ^= x << 13;
    x ^= x >>> 17;
    x ^= x << 5;
    return (x >>> 0) / 2 ** 32;
  };
}

test('p50/p90/p99/p99.9/max as Node\'s histogram gives them, for values from 1 µs to an hour, over resets', () => {
  const ours = new ResponseTimes();
  const node = createHistogram();
  const next = random(42);
  for (const [n, top] of [[1, 10], [7, 3000], [1000, 2047], [1000, 2049], [5000, 1e5], [20000, 3.6e9], [333, 5e7]]) {
    for (let i = 0; i < n; i++) {
      const us = Math.max(1, Math.round(next() ** 3 * top)); // skewed towards fast, as response times are
      ours.record(us);
      node.record(us);
    }
    for (const p of [0.1, 50, 90, 99, 99.9, 100]) assert.equal(ours.percentile(p), node.percentile(p), `p${p} of ${n} values up to ${top} µs`);
    ours.reset();
    node.reset();
  }
});

test('each octave\'s bucket edges: 2047, 2048, 2049, 4095, 4096 and their neighbours land where Node puts them', () => {
  for (let shift = 11; shift < 32; shift++) {
    for (const us of [2 ** shift - 1, 2 ** shift, 2 ** shift + 1, 2 ** shift + 2 ** (shift - 10), 2 ** shift + 2 ** (shift - 10) - 1]) {
      const ours = new ResponseTimes();
      const node = createHistogram();
      ours.record(us);
      node.record(us);
      assert.equal(ours.percentile(99), node.percentile(99), `${us} µs`);
    }
  }
});
