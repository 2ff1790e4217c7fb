// The reload executor (lib/master/reload/executor.js) on a host whose slots only
// record what they were asked: what it does between the steps of a batch, not what a
// worker does (test/reload/* run real workers).
import test from 'node:test';
import assert from 'node:assert/strict';
import { planReload } from '../../lib/master/reload/plan.js';
import { runReload } from '../../lib/master/reload/executor.js';

test('a surge batch forks one replacement per turn of the event loop: between two forks the daemon serves its I/O', async () => {
  const log = [];
  const slot = (index) => ({
    async replace() {
      // A fork blocks the loop until the child execs; what the loop runs between two is
      // what waits on it (a replacement's listen(), a client's connection).
      log.push(`fork ${index}`);
      setImmediate(() => log.push(`loop after fork ${index}`));
      return { ready_ms: 1, pid: 1000 + index, oldPid: null, retire: null };
    },
  });
  const host = { name: 'app', slot, adopt() {} };
  const target = { instances: 3, reload_parallel: 1, reload_strategy: 'surge', max_surge: '100%', max_unavailable: 0, retire_interval: null };
  const plan = planReload({ slots: [0, 1, 2].map((index) => ({ index, serving: true })), target });
  const outcome = await runReload(plan, { host, config: target, reason: 'reload', emit: () => {} });
  assert.equal(outcome.ok, true);
  assert.deepEqual(log.slice(0, 5), ['fork 0', 'loop after fork 0', 'fork 1', 'loop after fork 1', 'fork 2']);
});
