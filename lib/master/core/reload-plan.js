// The rolling reload as data: which slots get a new worker, in what order, how many at
// once, and what a failure leaves behind. Pure (no process, no timer, no I/O): the one
// executor (rolling-reload.js) runs the steps nextSteps() hands it and reports how each
// ended; settle() turns those ends into the reload's outcome.
//
// A plan is a list of batches, run one after another: a batch begins only once every
// step of the batches before it succeeded. Within a batch, steps start in order, at most
// `window` at once, the next one as soon as one ends. After a failure no step starts;
// the steps in flight finish. Steps:
//   replace {slot, serving: true}   a new worker beside the old one; the old one retires
//                                   once the new one is ready, so the slot serves throughout
//   replace {slot, serving: false}  nothing serves in the slot (crashed, errored): a plain start
//   add {slot}                      a slot the target adds (scale up), plain start
//   retire {slot}                   a slot beyond the target (scale down): its worker stops
//                                   gracefully and the slot goes
// A step ends once its change of capacity is made (the new worker ready, the slot gone);
// the old workers' graceful retirements go on beside the next steps. A plan may hold
// several replace batches (a reload in rounds, each round's size its window); the app
// adopts the target config after the last of them.
//
// Rollback points: a failed replace step kills its new worker, and its slot keeps its old
// one; a slot whose step never started keeps its old worker too. So no slot that served
// before the reload stops serving because of it, and capacity only falls when the target
// asks for fewer slots, after every replacement succeeded.

/**
 * @typedef {{index: number, serving: boolean}} SlotView  serving: a worker runs in the slot (starting or online)
 * @typedef {{id: number, action: 'replace'|'add'|'retire', slot: number, serving?: boolean}} Step
 * @typedef {{kind: 'replace'|'scale-up'|'scale-down', window: number, steps: Step[]}} Batch
 * @typedef {{from: number, instances: number, of: number, batches: Batch[], adoptBefore: number|null}} Plan
 *   from: slots before; instances: slots after; of: replace steps (the progress count);
 *   adoptBefore: the app adopts the target config before this batch runs (batches.length:
 *   at the end), once every replace batch succeeded; null: it keeps its config
 * @typedef {Map<number, 'running'|'ok'|'failed'>} StepStates  step id -> how it stands (absent: not started)
 */

/**
 * @param {object} o
 * @param {SlotView[]} o.slots  the app's slots, in index order
 * @param {{instances: number, reload_parallel: number}} [o.target]  the config the app reloads to
 * @param {number[]} [o.only]   instead of a target: replace these slots only, with no change
 *   of count or config (max_memory_restart)
 * @returns {Plan}
 */
export function planReload({ slots, target, only = null }) {
  const { instances, reload_parallel: parallel = 1 } = target ?? {};
  if (!only && !Number.isInteger(instances)) throw new TypeError(`a reload plan needs a target instance count (got ${instances})`);
  const batches = [];
  let id = 0;
  const batch = (kind, window, steps) => {
    if (steps.length) batches.push({ kind, window: Math.min(Math.max(1, window), steps.length), steps: steps.map((s) => ({ id: id++, ...s })) });
  };
  const replaced = slots.filter((s) => (only ? only.includes(s.index) : s.index < instances));
  batch('replace', parallel, replaced.map((s) => ({ action: 'replace', slot: s.index, serving: s.serving })));
  if (only) return { from: slots.length, instances: slots.length, of: replaced.length, batches, adoptBefore: null };

  const adoptBefore = batches.length;
  const from = slots.length;
  // New slots start together, as `super scale` starts them; extra slots retire from the
  // highest down, so the slots left are always 0..n-1.
  if (instances > from) batch('scale-up', instances - from, range(from, instances).map((slot) => ({ action: 'add', slot })));
  if (instances < from) batch('scale-down', from - instances, range(instances, from).reverse().map((slot) => ({ action: 'retire', slot })));
  return { from, instances, of: replaced.length, batches, adoptBefore };
}

/**
 * Where a run stands and what starts now.
 * @param {Plan} plan
 * @param {StepStates} states
 * @returns {{batch: number|null, start: Step[]}}  batch: the batch under way (plan.batches.length
 *   once every step succeeded; null after a failure, when nothing more starts)
 */
export function nextSteps(plan, states) {
  if ([...states.values()].includes('failed')) return { batch: null, start: [] };
  for (const [b, { steps, window }] of plan.batches.entries()) {
    const running = steps.filter((s) => states.get(s.id) === 'running').length;
    const pending = steps.filter((s) => !states.has(s.id));
    if (running || pending.length) return { batch: b, start: pending.slice(0, window - running) };
  }
  return { batch: plan.batches.length, start: [] };
}

/**
 * What a run left, from how each step ended: the reload's outcome. Its rollback: a slot
 * not in `replaced` runs what it ran before (its old worker, if it served).
 * @param {Plan} plan
 * @param {StepStates} states
 * @returns {{ok: boolean, replaced: number[], kept: number[]}}  replaced: slots running a
 *   new worker; kept: the app's slots (after the run) not replaced
 */
export function settle(plan, states) {
  const steps = plan.batches.flatMap((b) => b.steps);
  const slotsOf = (action, ...how) => steps.filter((s) => s.action === action && how.includes(states.get(s.id))).map((s) => s.slot);
  const replaced = slotsOf('replace', 'ok').sort((a, b) => a - b);
  const retired = slotsOf('retire', 'running', 'ok', 'failed');
  // An added slot stays, even when its worker did not become ready (as `super scale` leaves it).
  const slots = [...range(0, plan.from).filter((i) => !retired.includes(i)), ...slotsOf('add', 'running', 'ok', 'failed')];
  return {
    ok: !steps.some((s) => states.get(s.id) === 'failed'),
    replaced,
    kept: slots.filter((i) => !replaced.includes(i)),
  };
}

const range = (from, to) => Array.from({ length: Math.max(0, to - from) }, (_, i) => from + i);
