import assert from 'node:assert/strict';
import { test } from 'node:test';
import { resolveInstances } from '../../lib/config/instances.js';

test('N > 0 is N, whatever the CPUs', () => {
  assert.equal(resolveInstances(1, 4), 1);
  assert.equal(resolveInstances(12, 4), 12);
});

test('"max" and 0 are every CPU', () => {
  assert.equal(resolveInstances('max', 6), 6);
  assert.equal(resolveInstances(0, 6), 6);
});

test('-N leaves N CPUs free', () => {
  assert.equal(resolveInstances(-1, 4), 3);
  assert.equal(resolveInstances(-3, 4), 1);
});

test('a result below 1 is refused, saying why', () => {
  assert.throws(() => resolveInstances(-3, 2), { name: 'RangeError', message: '-3 with 2 CPUs leaves no worker' });
  assert.throws(() => resolveInstances(-1, 1), { message: '-1 with 1 CPU leaves no worker' });
});

test('non-integers are refused', () => {
  for (const bad of [1.5, 'lots', '4', null, undefined, NaN, Infinity]) {
    assert.throws(() => resolveInstances(bad, 4), RangeError, String(bad));
  }
  assert.throws(() => resolveInstances(1.5, 4), { message: 'must be a positive integer, "max", 0 or a negative integer (got 1.5)' });
});
