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
  /** @type {any} the fields of an app config a reload reads */
  const target = { instances: 3, reload_parallel: 1, reload_strategy: 'surge', max_surge: '100%', max_unavailable: 0, retire_interval: null };
  const plan = planReload({ slots: [0, 1, 2].map((index) => ({ index, serving: true })), target });
  const outcome = await runReload(plan, { host, config: target, reason: 'reload', emit: () => {} });
  assert.equal(outcome.ok, true);
  assert.deepEqual(log.slice(0, 5), ['fork 0', 'loop after fork 0', 'fork 1', 'loop after fork 1', 'fork 2']);
});

/**
 * A host whose slots record each call in `log`; a replacement is ready at once (or fails
 * when `fail` names its slot) and its old worker retires when `exits(slot)` resolves.
 * @param {number} count
 * @param {{log: string[], fail?: number[], exits?: (slot: number) => Promise<unknown>}} o
 */
function fakeHost(count, { log, fail = [], exits = () => Promise.resolve() }) {
  const slot = (index) => ({
    async replace(config, { onForked, onReady }) {
      log.push(`replace ${index}`);
      onForked(2000 + index, 1000 + index);
      if (fail.includes(index)) throw new Error(`slot ${index} failed`);
      onReady(2000 + index);
      return { pid: 2000 + index, oldPid: 1000 + index, ready_ms: 1, retire: () => exits(index).then(() => (log.push(`retired ${index}`), { code: 0, signal: null })) };
    },
  });
  return { name: 'app', slot, adopt: () => log.push('adopt') };
}
const slots = (n) => Array.from({ length: n }, (_, index) => ({ index, serving: true }));
/** @returns {any} the fields of an app config a reload reads */
const rolling = (n) => ({ instances: n, reload_parallel: 1, reload_strategy: 'rolling' });
/** @returns {any} the fields of an app config a reload reads */
const surge = (n, extra) => ({ instances: n, reload_parallel: 1, reload_strategy: 'surge', max_surge: '100%', max_unavailable: 0, retire_interval: null, ...extra });

test('rolling: an old worker retires beside the next steps, and the reload ends once every one has', async () => {
  const log = [];
  const steps = [];
  /** @type {() => void} */
  let exit0;
  const exits = (i) => (i === 0 ? new Promise((resolve) => (exit0 = () => resolve())) : Promise.resolve());
  const target = rolling(2);
  const running = runReload(planReload({ slots: slots(2), target }), { host: fakeHost(2, { log, exits }), config: target, reason: 'reload', emit: (s) => steps.push(s.step) });
  let ended = false;
  running.then(() => (ended = true));
  for (let i = 0; i < 50 && !log.includes('adopt'); i++) await new Promise((resolve) => setImmediate(resolve));
  assert.deepEqual(log, ['replace 0', 'replace 1', 'retired 1', 'adopt'], 'slot 1 replaced while slot 0\'s old worker still drains');
  assert.equal(ended, false, 'the reload waits for that retirement');
  exit0();
  const outcome = await running;
  assert.deepEqual([outcome.ok, outcome.replaced, outcome.kept], [true, [0, 1], []]);
  assert.ok(!steps.includes('surge') && !steps.includes('batch'), 'a rolling reload says nothing of batches');
});

test('surge: a batch\'s old workers retire staggered, and the next batch waits for them', async () => {
  const log = [];
  const emitted = [];
  const at = new Map();
  const exits = (i) => (at.set(i, Date.now()), Promise.resolve());
  const target = surge(3, { max_surge: 2, retire_interval: 40 });
  const plan = planReload({ slots: slots(3), target });
  const t0 = Date.now();
  const outcome = await runReload(plan, { host: fakeHost(3, { log, exits }), config: target, reason: 'reload', emit: (s) => emitted.push(s) });
  assert.equal(outcome.ok, true);
  // From before the reload, not from the first retirement's exit: a loaded host may run that
  // one late while the second keeps its turn (retire_interval after the first one's turn).
  assert.ok(at.get(1) - t0 >= 39 && at.get(1) > at.get(0), `the batch's second retirement comes retire_interval after its first's turn (${at.get(1) - t0} ms)`);
  assert.ok(log.indexOf('replace 2') > log.indexOf('retired 1'), 'the second batch starts on the memory the first freed');
  const steps = emitted.map((s) => s.step);
  assert.equal(steps[0], 'surge', 'the plan is said before its first batch');
  assert.deepEqual(emitted.filter((s) => s.step === 'batch').map((s) => [s.batch, s.of, s.ready]), [[1, 2, 2], [2, 2, 1]]);
});

test('surge: a failed replacement ends the reload, its batch is still reported, its slot keeps its old worker', async () => {
  const log = [];
  const emitted = [];
  const target = surge(3);
  const outcome = await runReload(planReload({ slots: slots(3), target }), { host: fakeHost(3, { log, fail: [1] }), config: target, reason: 'reload', emit: (s) => emitted.push(s) });
  assert.deepEqual([outcome.ok, outcome.failed.slot, outcome.failed.reason], [false, 1, 'slot 1 failed']);
  assert.deepEqual(outcome.kept, [1]);
  assert.deepEqual(emitted.filter((s) => s.step === 'batch').map((s) => s.ready), [2], 'the batch is through with 2 of 3 ready');
  assert.ok(!log.includes('adopt'), 'a failed reload does not adopt the target config');
});
