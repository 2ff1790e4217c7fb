// What the daemon gives each worker's oom_score_adj (lib/master/process/oom-score.js): 0,
// or the daemon's value at start if higher; nothing when the worker inherits that anyway.
// (test/hardening/cgroup-memory.test.js reads the real values of a running daemon.)
import test from 'node:test';
import assert from 'node:assert/strict';
import { workerAdj, readAdj, DAEMON_ADJ, WORKER_ADJ } from '../../lib/master/process/oom-score.js';

test('workers go back to 0 (or the higher value the daemon started with); nothing to write when they inherit it', async () => {
  assert.equal(WORKER_ADJ, 0);
  assert.equal(workerAdj(0, DAEMON_ADJ), 0, 'the daemon lowered itself: workers back to 0');
  assert.equal(workerAdj(-900, -900), 0, 'started at -900 (OOMScoreAdjust= of the unit): workers back to 0');
  assert.equal(workerAdj(200, DAEMON_ADJ), 200, 'started higher: workers keep that');
  assert.equal(workerAdj(0, 0), null, 'could not lower: workers inherit 0');
  assert.equal(workerAdj(300, 300), null);
  assert.equal(workerAdj(0, null), null, 'no /proc');
  assert.equal(typeof (await readAdj('self')), 'number');
  assert.equal(await readAdj(2 ** 30), null, 'no such process');
});
