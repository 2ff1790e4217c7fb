// The pure reload plan (lib/master/reload/plan.js): the order of a rolling reload,
// how many steps run at once, and what a failure at any step leaves serving. The executor
// (lib/master/reload/executor.js) asks nextSteps() what to start and settle() what it left, exactly as
// run() below does, with steps that end in an order the test chooses.
import test from 'node:test';
import assert from 'node:assert/strict';
import { planReload, nextSteps, settle, MEMORY_RESERVE, MEMORY_GROWTH } from '../../lib/master/reload/plan.js';

/** Slot views: `serving` for each index 0..n-1 (true: a worker serves in it). */
const slots = (...serving) => serving.map((s, index) => ({ index, serving: s }));
const serving = (n) => slots(...Array(n).fill(true));
/** The plan's steps as "action slot" strings, batch by batch. */
const shape = (plan) => plan.batches.map((b) => `${b.kind}/${b.window}: ${b.steps.map((s) => `${s.action} ${s.slot}`).join(', ')}`);

/**
 * Runs a plan as the executor does. Of the running steps, `pick` chooses the one that ends
 * next (default: the first started), `fails(step)` whether it fails. After each change it
 * checks the capacity: serving slots never fewer than before, nor than the target.
 * @param {object} plan  @param {object[]} view  @param {number} instances
 * @param {{fails?: (step: object) => boolean, pick?: (running: object[]) => object}} [o]
 */
function run(plan, view, instances, { fails = () => false, pick = (running) => running[0] } = {}) {
  /** @type {Map<number, any>} */
  const states = new Map();
  const started = [];
  const before = view.filter((s) => s.serving).length;
  let running = [];
  let most = 0;
  for (let turn = 0; turn < 1000; turn++) {
    const next = nextSteps(plan, states);
    for (const step of next.start) {
      states.set(step.id, 'running');
      running.push(step);
      started.push(step);
    }
    most = Math.max(most, running.length);
    assert.ok(servingNow(plan, view, states) >= Math.min(before, instances), `capacity after ${started.length} starts`);
    if (!running.length) return { started: started.map((s) => `${s.action} ${s.slot}`), states, most, batch: next.batch, serving: servingNow(plan, view, states) };
    const ended = pick(running);
    running = running.filter((s) => s !== ended);
    states.set(ended.id, fails(ended) ? 'failed' : 'ok');
  }
  throw new Error('the run did not end in 1000 turns');
}

/** A `pick` for run(): the running steps end in this order of slots. */
const inOrder = (...order) => (running) => {
  const slot = order.shift();
  return running.find((s) => s.slot === slot) ?? assert.fail(`slot ${slot} is not running`);
};

/** Slots with a worker serving, by the plan's own rules (a replacement goes beside the old worker). */
function servingNow(plan, view, states) {
  const steps = plan.batches.flatMap((b) => b.steps);
  const state = (action, slot) => states.get(steps.find((s) => s.action === action && s.slot === slot)?.id);
  const retiring = (slot) => ['running', 'ok'].includes(state('retire', slot));
  const old = view.filter((s) => !retiring(s.index) && (s.serving || state('replace', s.index) === 'ok')).length;
  return old + steps.filter((s) => s.action === 'add' && states.get(s.id) === 'ok').length;
}

test('same instance count: every slot, one at a time, in index order', () => {
  const plan = planReload({ slots: serving(3), target: { instances: 3, reload_parallel: 1 } });
  assert.deepEqual(shape(plan), ['replace/1: replace 0, replace 1, replace 2']);
  assert.equal(plan.of, 3);
  assert.equal(plan.adoptBefore, 1, 'the config is adopted once the replacements are done');
  const r = run(plan, serving(3), 3);
  assert.deepEqual(r.started, ['replace 0', 'replace 1', 'replace 2']);
  assert.equal(r.most, 1);
  assert.equal(r.batch, 1, 'the run ends past its last batch');
  assert.deepEqual(settle(plan, r.states), { ok: true, replaced: [0, 1, 2], kept: [] });
});

test('scale up during reload: the running slots are replaced first, then the new ones start together', () => {
  const plan = planReload({ slots: serving(2), target: { instances: 4, reload_parallel: 1 } });
  assert.deepEqual(shape(plan), ['replace/1: replace 0, replace 1', 'scale-up/2: add 2, add 3']);
  assert.equal(plan.of, 2, 'progress counts the replacements only');
  assert.equal(plan.adoptBefore, 1, 'new slots start with the target config');
  const r = run(plan, serving(2), 4);
  assert.deepEqual(r.started, ['replace 0', 'replace 1', 'add 2', 'add 3']);
  assert.equal(r.serving, 4);
  // The outcome names the added slots among those not replaced, as `super reload` always did.
  assert.deepEqual(settle(plan, r.states), { ok: true, replaced: [0, 1], kept: [2, 3] });
});

test('scale down during reload: the kept slots are replaced first, then the extra ones retire, highest first', () => {
  const plan = planReload({ slots: serving(4), target: { instances: 2, reload_parallel: 1 } });
  assert.deepEqual(shape(plan), ['replace/1: replace 0, replace 1', 'scale-down/2: retire 3, retire 2']);
  assert.equal(plan.of, 2);
  assert.equal(plan.instances, 2);
  const r = run(plan, serving(4), 2);
  assert.deepEqual(r.started, ['replace 0', 'replace 1', 'retire 3', 'retire 2']);
  assert.equal(r.serving, 2);
  assert.deepEqual(settle(plan, r.states), { ok: true, replaced: [0, 1], kept: [] });
});

test('reload_parallel 2: two replacements at once, the next one starts as soon as one ends', () => {
  const plan = planReload({ slots: serving(5), target: { instances: 5, reload_parallel: 2 } });
  assert.deepEqual(shape(plan), ['replace/2: replace 0, replace 1, replace 2, replace 3, replace 4']);
  /** @type {Map<number, any>} */
  const states = new Map();
  const first = nextSteps(plan, states).start.map((s) => s.slot);
  assert.deepEqual(first, [0, 1]);
  for (const s of plan.batches[0].steps.slice(0, 2)) states.set(s.id, 'running');
  assert.deepEqual(nextSteps(plan, states).start, [], 'no third while two run');
  states.set(plan.batches[0].steps[1].id, 'ok'); // slot 1 ends first
  assert.deepEqual(nextSteps(plan, states).start.map((s) => s.slot), [2]);
  // Slots ending out of order (the last started first) still never exceed 2 at once.
  const r = run(plan, serving(5), 5, { pick: (running) => running.at(-1) });
  assert.equal(r.most, 2);
  assert.deepEqual(settle(plan, r.states).replaced, [0, 1, 2, 3, 4]);
});

test('reload_parallel above the slot count starts every slot at once; below 1 counts as 1', () => {
  const wide = planReload({ slots: serving(3), target: { instances: 3, reload_parallel: 8 } });
  assert.deepEqual(shape(wide), ['replace/3: replace 0, replace 1, replace 2']);
  assert.equal(nextSteps(wide, new Map()).start.length, 3);
  const grown = planReload({ slots: serving(2), target: { instances: 3, reload_parallel: 8 } });
  assert.deepEqual(run(grown, serving(2), 3).started, ['replace 0', 'replace 1', 'add 2'], 'the new slot waits for the replacements');
  assert.deepEqual(shape(planReload({ slots: serving(2), target: { instances: 2, reload_parallel: 0 } })), ['replace/1: replace 0, replace 1']);
});

test('slots where nothing serves (crashed, errored) are started plainly, in the same order', () => {
  const view = slots(true, false, true);
  const plan = planReload({ slots: view, target: { instances: 3, reload_parallel: 1 } });
  assert.deepEqual(plan.batches[0].steps.map((s) => [s.slot, s.serving]), [[0, true], [1, false], [2, true]]);
  const r = run(plan, view, 3);
  assert.equal(r.serving, 3, 'the errored slot serves again');
});

test('rollback, one at a time: a failure at slot 1 keeps slots 1 and 2 on their old workers and skips the scale-up', () => {
  const view = serving(3);
  const plan = planReload({ slots: view, target: { instances: 5, reload_parallel: 1 } });
  const r = run(plan, view, 5, { fails: (s) => s.slot === 1 });
  assert.deepEqual(r.started, ['replace 0', 'replace 1'], 'nothing starts after the failure');
  assert.equal(r.batch, null);
  assert.equal(r.serving, 3, 'every slot that served still serves');
  assert.deepEqual(settle(plan, r.states), { ok: false, replaced: [0], kept: [1, 2] });
});

test('rollback, two at a time: the step in flight beside the failure finishes, none starts after it', () => {
  const view = serving(4);
  const plan = planReload({ slots: view, target: { instances: 4, reload_parallel: 2 } });
  // Slot 0 fails while slot 1 is in flight; slot 1 then becomes ready and keeps its new worker.
  const r = run(plan, view, 4, { fails: (s) => s.slot === 0 });
  assert.deepEqual(r.started, ['replace 0', 'replace 1']);
  assert.deepEqual(settle(plan, r.states), { ok: false, replaced: [1], kept: [0, 2, 3] });
  // Slot 1 ends first (ok) and slot 2 starts; then slot 0 fails: slot 2 still finishes, slot 3 never starts.
  const later = run(plan, view, 4, { fails: (s) => s.slot === 0, pick: inOrder(1, 0, 2) });
  assert.deepEqual(later.started, ['replace 0', 'replace 1', 'replace 2']);
  assert.deepEqual(settle(plan, later.states), { ok: false, replaced: [1, 2], kept: [0, 3] });
});

test('rollback during scale down: a failed replacement retires no slot', () => {
  const view = serving(4);
  const plan = planReload({ slots: view, target: { instances: 2, reload_parallel: 1 } });
  const r = run(plan, view, 2, { fails: (s) => s.slot === 1 });
  assert.deepEqual(r.started, ['replace 0', 'replace 1']);
  assert.equal(r.serving, 4, 'capacity stays what served before');
  assert.deepEqual(settle(plan, r.states), { ok: false, replaced: [0], kept: [1, 2, 3] });
});

test('rollback during scale up: an added slot that fails stays, and the replaced slots keep their new workers', () => {
  const view = serving(2);
  const plan = planReload({ slots: view, target: { instances: 4, reload_parallel: 1 } });
  const r = run(plan, view, 4, { fails: (s) => s.action === 'add' && s.slot === 3 });
  assert.deepEqual(r.started, ['replace 0', 'replace 1', 'add 2', 'add 3']);
  assert.deepEqual(settle(plan, r.states), { ok: false, replaced: [0, 1], kept: [2, 3] });
});

test('every failure point, every order: capacity never falls below what served before', () => {
  for (const [count, instances, parallel] of [[3, 3, 1], [4, 4, 2], [3, 5, 2], [5, 2, 3], [2, 2, 4]]) {
    const view = serving(count);
    const plan = planReload({ slots: view, target: { instances, reload_parallel: parallel } });
    const steps = plan.batches.flatMap((b) => b.steps);
    assert.equal(steps.length, Math.min(count, instances) + Math.abs(instances - count), 'a step per replaced, added or retired slot');
    for (const failing of steps) {
      for (const pick of [(r) => r[0], (r) => r.at(-1)]) {
        const r = run(plan, view, instances, { fails: (s) => s === failing, pick });
        const out = settle(plan, r.states);
        const where = `${count}->${instances} x${parallel}, ${failing.action} ${failing.slot} fails`;
        if (failing.action === 'retire') continue; // stopping a worker does not fail
        assert.equal(out.ok, false, where);
        assert.ok(r.serving >= count, `${where}: ${r.serving} serving`);
        assert.ok(!out.replaced.includes(failing.slot), `${where}: the failed slot is not replaced`);
      }
    }
  }
});

test('a plan needs a target instance count, unless it replaces given slots only', () => {
  assert.throws(() => planReload({ slots: serving(2) }), /target/);
});

test('one slot only (max_memory_restart): that slot, with no change of count or config', () => {
  const plan = planReload({ slots: serving(4), only: [2] });
  assert.deepEqual(shape(plan), ['replace/1: replace 2']);
  assert.equal(plan.adoptBefore, null);
  const r = run(plan, serving(4), 4);
  assert.deepEqual(settle(plan, r.states), { ok: true, replaced: [2], kept: [0, 1, 3] });
});

test('probation overlaps the next boot: a step on probation frees the window, the batch waits for it', () => {
  const plan = planReload({ slots: serving(3), target: { instances: 3, reload_parallel: 1 } });
  const [s0, s1, s2] = plan.batches[0].steps;
  /** @type {Map<number, any>} */
  const states = new Map([[s0.id, 'probation']]);
  assert.deepEqual(nextSteps(plan, states).start.map((s) => s.slot), [1], 'slot 1 boots while slot 0 is on probation');
  states.set(s1.id, 'running');
  assert.deepEqual(nextSteps(plan, states).start, [], 'one booting at a time');
  states.set(s1.id, 'ok');
  states.set(s2.id, 'ok');
  assert.equal(nextSteps(plan, states).batch, 0, 'the batch is not through while slot 0 is on probation');
  states.set(s0.id, 'failed');
  assert.deepEqual(nextSteps(plan, states), { batch: null, start: [] }, 'a failure on probation stops the reload');
});

const surgeTarget = (instances, more = {}) => ({ instances, reload_parallel: 1, reload_strategy: 'surge', max_surge: '100%', max_unavailable: 0, retire_interval: null, ...more });
const MiB = 1024 ** 2;
/** Memory that holds exactly `n` replacements of 100 MiB workers. */
const holds = (n) => ({ available: MEMORY_RESERVE + n * MEMORY_GROWTH * 100 * MiB, perWorker: 100 * MiB });

test('surge 100%: one batch, every replacement boots at once; retirements 25 ms apart, a batch within half a second', () => {
  const plan = planReload({ slots: serving(4), target: surgeTarget(4) });
  assert.deepEqual(shape(plan), ['replace/4: replace 0, replace 1, replace 2, replace 3']);
  assert.equal(plan.batches[0].retire, 25);
  assert.equal(planReload({ slots: serving(21), target: surgeTarget(21) }).batches[0].retire, 25);
  assert.equal(planReload({ slots: serving(41), target: surgeTarget(41) }).batches[0].retire, 13);
  assert.equal(planReload({ slots: serving(1), target: surgeTarget(1) }).batches[0].retire, 0);
  assert.equal(nextSteps(plan, new Map()).start.length, 4);
  assert.deepEqual(plan.surge, { size: 4, wanted: 4, unavailable: 0, room: null, memory: null, batches: 1 });
  assert.equal(planReload({ slots: serving(4), target: surgeTarget(4, { retire_interval: 50 }) }).batches[0].retire, 50);
});

test('surge batch sizes: a number, a percentage rounded up, never more than the slots', () => {
  const sizes = (n, max_surge) => planReload({ slots: serving(n), target: surgeTarget(n, { max_surge }) }).batches.map((b) => b.steps.length);
  assert.deepEqual(sizes(5, 2), [2, 2, 1]);
  assert.deepEqual(sizes(5, '25%'), [2, 2, 1], '25% of 5 = 1.25, rounded up');
  assert.deepEqual(sizes(2, '10%'), [1, 1]);
  assert.deepEqual(sizes(3, 8), [3]);
  assert.deepEqual(sizes(8, '50%'), [4, 4]);
  // Batches run one after another: the second starts only once the first is through.
  const plan = planReload({ slots: serving(4), target: surgeTarget(4, { max_surge: 2 }) });
  /** @type {Map<number, any>} */
  const states = new Map(plan.batches[0].steps.map((s) => [s.id, 'ok']));
  states.set(plan.batches[0].steps[1].id, 'probation');
  assert.deepEqual(nextSteps(plan, states).start, []);
  states.set(plan.batches[0].steps[1].id, 'ok');
  assert.deepEqual(nextSteps(plan, states).start.map((s) => s.slot), [2, 3]);
});

test('surge under the memory guard: the batch shrinks to the replacements memory holds', () => {
  const plan = planReload({ slots: serving(8), target: surgeTarget(8), memory: holds(3) });
  assert.deepEqual(plan.batches.map((b) => b.steps.length), [3, 3, 2]);
  assert.deepEqual(plan.surge, { size: 3, wanted: 8, unavailable: 0, room: 3, memory: { available: holds(3).available, per_worker: 100 * MiB }, batches: 3 });
  assert.ok(plan.batches.flatMap((b) => b.steps).every((s) => !s.down), 'no slot goes down without max_unavailable');
  // Memory for none: still one at a time (a reload always progresses), as rolling does.
  assert.deepEqual(planReload({ slots: serving(3), target: surgeTarget(3), memory: holds(0) }).batches.map((b) => b.steps.length), [1, 1, 1]);
  // Plenty of memory: max_surge as written.
  assert.deepEqual(planReload({ slots: serving(4), target: surgeTarget(4), memory: holds(40) }).batches.map((b) => b.steps.length), [4]);
});

test('max_unavailable lets slots go down first when memory is short (a percentage rounds down)', () => {
  const plan = planReload({ slots: serving(6), target: surgeTarget(6, { max_unavailable: 1 }), memory: holds(1) });
  assert.deepEqual(plan.batches.map((b) => b.steps.map((s) => `${s.slot}${s.down ? ' down' : ''}`)), [['0', '1 down'], ['2', '3 down'], ['4', '5 down']]);
  assert.equal(plan.surge.unavailable, 1);
  const none = planReload({ slots: serving(4), target: surgeTarget(4, { max_unavailable: '50%' }), memory: holds(0) });
  assert.deepEqual(none.batches.map((b) => b.steps.map((s) => `${s.slot}${s.down ? ' down' : ''}`)), [['0 down', '1 down'], ['2 down', '3 down']]);
  // Enough memory: max_unavailable is not used, nothing goes down.
  const roomy = planReload({ slots: serving(4), target: surgeTarget(4, { max_unavailable: 2 }), memory: holds(4) });
  assert.ok(roomy.batches.flatMap((b) => b.steps).every((s) => !s.down));
  // max_surge 0: only down-first batches. '10%' of 4 rounds down to 0: one at a time anyway.
  assert.deepEqual(planReload({ slots: serving(3), target: surgeTarget(3, { max_surge: 0, max_unavailable: 2 }) }).batches.map((b) => b.steps.filter((s) => s.down).length), [2, 1]);
  assert.deepEqual(planReload({ slots: serving(4), target: surgeTarget(4, { max_surge: 0, max_unavailable: '10%' }) }).batches.map((b) => b.steps.length), [1, 1, 1, 1]);
});

test('surge rollback per batch: a failure stops the reload after its batch, earlier batches keep their new workers', () => {
  const view = serving(6);
  const plan = planReload({ slots: view, target: surgeTarget(6, { max_surge: 2 }) });
  const r = run(plan, view, 6, { fails: (s) => s.slot === 2 });
  assert.deepEqual(r.started, ['replace 0', 'replace 1', 'replace 2', 'replace 3']);
  assert.deepEqual(settle(plan, r.states), { ok: false, replaced: [0, 1, 3], kept: [2, 4, 5] });
  assert.ok(r.serving >= 6);
});
