import test from 'node:test';
import assert from 'node:assert/strict';
import { appStatus, assertMove, WORKER_STATES as S } from '../../lib/master/states.js';

test('app status derives from worker states', () => {
  assert.equal(appStatus([]), 'stopped');
  assert.equal(appStatus([S.ONLINE, S.ONLINE]), 'online');
  assert.equal(appStatus([S.ONLINE, S.ERRORED]), 'errored');
  assert.equal(appStatus([S.STOPPED, S.STOPPED]), 'stopped');
  assert.equal(appStatus([S.ONLINE, S.STOPPING]), 'stopping');
  assert.equal(appStatus([S.ONLINE, S.EXITED]), 'starting');
});

test('only the documented moves are allowed', () => {
  assertMove(S.STARTING, S.ONLINE);
  assertMove(S.EXITED, S.ERRORED);
  assert.throws(() => assertMove(S.STOPPED, S.ONLINE), /invalid worker state change stopped -> online/);
  assert.throws(() => assertMove(S.ERRORED, S.ONLINE));
});
