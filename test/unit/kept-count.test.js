// The count an app goes on with when its file is read again (reload, start of its file,
// resurrect, upgrade): one rule, lib/config/autoscale.js keptCount.
import test from 'node:test';
import assert from 'node:assert/strict';
import { keptCount } from '../../lib/config/autoscale.js';

const plain = Object.freeze({ name: 'web', instances: 2 });
const scaled = Object.freeze({ name: 'auto', instances: 1, autoscale: { min: 1, max: 4 } });

test('autoscaled: the count within the bounds; scaled: while the file says what it said; else the file', () => {
  assert.equal(keptCount(scaled, 3).instances, 3);
  assert.equal(keptCount(scaled, 9).instances, 4);
  assert.equal(keptCount(plain, 5, 2).instances, 5, 'scaled from the 2 the file still says');
  assert.equal(keptCount(plain, 5, 3).instances, 2, 'the file changed since the scale');
  assert.equal(keptCount(plain, 5).instances, 2, 'not scaled by a command');
  assert.equal(keptCount(plain, 0, 2), plain, 'no count: the config as it is');
  assert.ok(Object.isFrozen(keptCount(plain, 5, 2)));
});
