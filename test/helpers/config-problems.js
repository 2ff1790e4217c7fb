// The problem lines of an ecosystem file that must be refused (E_CONFIG); fails the test
// when the file is accepted.
import assert from 'node:assert/strict';

/**
 * @param {() => unknown} fn  loads the file
 * @returns {string[]}
 */
export function problems(fn) {
  try {
    fn();
  } catch (err) {
    assert.equal(err.code, 'E_CONFIG');
    return err.details.problems;
  }
  assert.fail('accepted');
}
