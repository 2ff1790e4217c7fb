// The rolling reload as data: which slots get a new worker, in what order, how many at
// once, and what a failure leaves behind. Pure (no process, no timer, no I/O): the one
// executor (executor.js) runs the steps nextSteps() hands it and reports how each
// ended; settle() turns those ends into the reload's outcome.
//
// A plan is a list of batches, run one after another: a batch begins only once every
// step of the batches before it succeeded. Within a batch, steps start in order, at most
// `window` at once booting, the next one as soon as one is ready: a step on probation
// (ready, not yet trusted) does not hold the window, so one slot's probation overlaps the
// next slot's boot. After a failure no step starts; the steps in flight finish. Steps:
//   replace {slot, serving: true}   a new worker beside the old one; the old one retires
//                                   once the new one is ready, so the slot serves throughout
//   replace {slot, serving: true, down: true}  (surge, memory short, max_unavailable; or a
//                                   fork-mode worker that holds its port itself) the
//                                   old worker stops first, then the new one starts; if the
//                                   new one fails, the slot starts its old config again
//   replace {slot, serving: false}  nothing serves in the slot (crashed, errored): a plain start
//   add {slot}                      a slot the target adds (scale up), plain start
//   retire {slot}                   a slot beyond the target (scale down): its worker stops
//                                   gracefully and the slot goes
// A step ends once its change of capacity is made (the new worker ready, the slot gone);
// the old workers' graceful retirements go on beside the next steps. A plan may hold
// several replace batches (a reload in rounds, each round's size its window); the app
// adopts the target config after the last of them.
//
// Strategies (the target's reload_strategy):
//   rolling  one replace batch, `reload_parallel` booting at once; each old worker retires
//            as soon as its replacement passed probation.
//   surge    replace batches of max_surge (+ max_unavailable when memory is short) slots,
//            each booting and serving probation together; each old worker retires once
//            its replacement is through, at least `retire` ms after the batch's previous
//            retirement (default 25 ms, a batch within 0.5 s), and the next batch waits
//            for them. The memory guard shrinks max_surge to the replacements the host's
//            available memory holds (surgeSize).
//
// Rollback points: a failed replace step kills its new worker, and its slot keeps its old
// one; a slot whose step never started keeps its old worker too. So no slot that served
// before the reload stops serving because of it, and capacity only falls when the target
// asks for fewer slots, after every replacement succeeded.

/**
 * @typedef {{index: number, serving: boolean}} SlotView  serving: a worker runs in the slot (starting or online)
 * @typedef {{id: number, action: 'replace'|'add'|'retire', slot: number, serving?: boolean, down?: boolean}} Step
 * @typedef {{kind: 'replace'|'scale-up'|'scale-down', window: number, steps: Step[], retire?: number}} Batch
 *   retire: (surge) the least ms between two retirements of the batch's old workers, each
 *   once its step is through, and the step ends when it has exited; absent: each old worker
 *   retires as soon as its step is through, beside the next steps
 * @typedef {{size: number, wanted: number, unavailable: number, room: number|null, memory: {available: number, per_worker: number}|null, batches: number}} Surge
 *   size: replacements beside the old workers per batch; wanted: max_surge resolved (size is
 *   less when memory is short); unavailable: slots per batch that go down first; room: the
 *   replacements memory holds (null: not measured); memory: what the guard measured
 * @typedef {{from: number, instances: number, of: number, batches: Batch[], adoptBefore: number|null, surge: Surge|null}} Plan
 *   from: slots before; instances: slots after; of: replace steps (the progress count);
 *   adoptBefore: the app adopts the target config before this batch runs (batches.length:
 *   at the end), once every replace batch succeeded; null: it keeps its config
 * @typedef {Map<number, 'running'|'probation'|'ok'|'failed'>} StepStates  step id -> how it
 *   stands (absent: not started; probation: ready, on probation, no longer holding the window)
 * @typedef {{available: number, perWorker: number}} Memory  bytes: the host's MemAvailable,
 *   and the most a worker of the app uses (RSS)
 */

/** Fixed memory the guard leaves free, and the growth it allows a fresh worker over the measured RSS. */
export const MEMORY_RESERVE = 64 * 1024 * 1024;
export const MEMORY_GROWTH = 1.25;

/** How many more workers of `memory.perWorker` the host's memory holds, beside MEMORY_RESERVE. @param {Memory} memory */
export function workersThatFit(memory) {
  return Math.max(0, Math.floor((memory.available - MEMORY_RESERVE) / (memory.perWorker * MEMORY_GROWTH)));
}

/**
 * @param {object} o
 * @param {SlotView[]} o.slots  the app's slots, in index order
 * @param {{instances: number, reload_parallel: number, reload_strategy?: string, max_surge?: number|string,
 *   max_unavailable?: number|string, retire_interval?: number|null}} [o.target]  the config the app reloads to
 * @param {number[]|null} [o.only]   instead of a target: replace these slots only, with no change
 *   of count or config (max_memory_restart)
 * @param {Memory|null} [o.memory]  for the surge memory guard; null: not measured
 * @param {number[]} [o.downFirst]  slots whose old worker must stop before its replacement
 *   starts (a fork-mode worker holding its port itself: a replacement beside it could not bind)
 * @returns {Plan}
 */
export function planReload({ slots, target, only = null, memory = null, downFirst = [] }) {
  const { instances = NaN, reload_parallel: parallel = 1 } = target ?? {}; // NaN: no count (an `only` plan needs none)
  if (!only && !Number.isInteger(instances)) throw new TypeError(`a reload plan needs a target instance count (got ${instances})`);
  const batches = [];
  let id = 0;
  const batch = (kind, window, steps) => {
    if (steps.length) batches.push({ kind, window: Math.min(Math.max(1, window), steps.length), steps: steps.map((s) => ({ id: id++, ...s })) });
  };
  const replaced = slots.filter((s) => (only ? only.includes(s.index) : s.index < instances));
  /** @type {{action: string, slot: number, serving: boolean, down?: boolean}[]} */
  const steps = replaced.map((s) => ({ action: 'replace', slot: s.index, serving: s.serving, ...(s.serving && downFirst.includes(s.index) && { down: true }) }));
  const surge = !only && target?.reload_strategy === 'surge' ? surgeSize(target, steps.length, memory) : null;
  if (!surge) batch('replace', parallel, steps);
  for (let at = 0; surge && at < steps.length; at += surge.size + surge.unavailable) {
    const chunk = steps.slice(at, at + surge.size + surge.unavailable);
    // The slots that go down first are the last of the batch that serve: the others boot beside them.
    if (surge.unavailable) for (const s of chunk.filter((c) => c.serving).slice(-surge.unavailable)) s.down = true;
    batch('replace', chunk.length, chunk);
    batches.at(-1).retire = target?.retire_interval ?? staggerOver(chunk.length);
  }
  if (surge) surge.batches = batches.length;
  if (only) return { from: slots.length, instances: slots.length, of: replaced.length, batches, adoptBefore: null, surge: null };

  const adoptBefore = batches.length;
  const from = slots.length;
  // New slots start together, as `super scale` starts them; extra slots retire from the
  // highest down, so the slots left are always 0..n-1.
  if (instances > from) batch('scale-up', instances - from, range(from, instances).map((slot) => ({ action: 'add', slot })));
  if (instances < from) batch('scale-down', from - instances, range(instances, from).reverse().map((slot) => ({ action: 'retire', slot })));
  return { from, instances, of: replaced.length, batches, adoptBefore, surge };
}

/**
 * The batch of a surge reload of `count` slots: max_surge (a percentage rounds up) beside
 * the old workers, shrunk to what memory holds; when it shrinks (or max_surge is 0),
 * max_unavailable (a percentage rounds down) slots per batch go down first instead.
 * At least one slot per batch, so a reload always progresses.
 * @param {{max_surge?: number|string, max_unavailable?: number|string}} target
 * @param {number} count
 * @param {Memory|null} memory
 * @returns {Surge}
 */
function surgeSize(target, count, memory) {
  const wanted = Math.min(count, amountOf(target.max_surge ?? '100%', count, Math.ceil));
  const room = memory ? workersThatFit(memory) : null;
  const size = Math.min(wanted, room ?? Infinity);
  const unavailable = size < wanted || wanted === 0 ? Math.min(count - size, amountOf(target.max_unavailable ?? 0, count, Math.floor)) : 0;
  const measured = memory ? { available: memory.available, per_worker: memory.perWorker } : null;
  if (size + unavailable === 0) return { size: 1, wanted, unavailable: 0, room, memory: measured, batches: 0 };
  return { size, wanted, unavailable, room, memory: measured, batches: 0 };
}

/** A count, or 'N%' of `of` rounded by `round`. */
function amountOf(v, of, round) {
  return typeof v === 'string' ? round((Number.parseFloat(v) * of) / 100) : v;
}

/**
 * The default retire_interval: 25 ms apart, a batch's retirements within half a second.
 * Each retiring worker's keep-alive clients reconnect as their next answer comes (it says
 * Connection: close), so the clients' own pace spreads them; the stagger only keeps the
 * drains of workers whose replacements got through together from landing in the same
 * instant. 25 ms separates them (a reconnect is well under a millisecond of the daemon's
 * time) without adding their sum to the reload: the last retirement ends it, so at 100 ms
 * apart a 2-worker reload spent 100 of its 560 ms in the daemon waiting.
 */
const RETIRE_GAP = 25;
const RETIRE_SPREAD = 500;
const staggerOver = (n) => (n > 1 ? Math.min(RETIRE_GAP, Math.round(RETIRE_SPREAD / (n - 1))) : 0);

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
    const booting = steps.filter((s) => states.get(s.id) === 'running').length;
    const probation = steps.some((s) => states.get(s.id) === 'probation');
    const pending = steps.filter((s) => !states.has(s.id));
    if (booting || probation || pending.length) return { batch: b, start: pending.slice(0, window - booting) };
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
