// When an old worker retires, once its replacement is through probation: the two
// strategies of a reload, chosen once per plan (as node:cluster chooses RoundRobinHandle or
// SharedHandle once per server), so the executor never asks which one it runs.
//   rolling  it retires at once, beside the next steps; the step ends without waiting.
//   surge    it retires as soon as its replacement is through, but never sooner than
//            batch.retire ms after the batch's previous retirement: the replacements'
//            probations end spread over their boots, so retirement overlaps the batch's
//            last boots and probations instead of following them, and the stagger only
//            adds time where replacements get through together. The step ends when its old
//            worker has exited, so the next batch starts on the memory the retired ones freed.
// A strategy is {begin(), started(step), through(step, r), failed(step)}; through() resolves
// when the step may end.

/**
 * @param {import('./plan.js').Plan} plan
 * @param {object} o
 * @param {string} o.app
 * @param {(step: object) => void} o.emit
 * @param {(step: object, r: object) => Promise<void>} o.retire  retires r's old worker, reporting it
 * @param {(retirement: Promise<void>) => void} o.beside  a retirement the reload waits for at its end
 */
export function retirementFor(plan, o) {
  return plan.surge ? surgeRetirement(plan, o) : rollingRetirement(o);
}

function rollingRetirement({ retire, beside }) {
  return {
    begin() {},
    started() {},
    async through(step, r) {
      if (r.retire) beside(retire(step, r));
    },
    failed() {},
  };
}

function surgeRetirement(plan, { app, emit, retire }) {
  const through = new Set(); // ids of steps through probation
  const failed = new Set();
  const batches = new Map(); // batch index -> {t0, done, lastRetire}: when it began, whether it is through, its last retirement's turn
  const batchOf = (step) => plan.batches.findIndex((b) => b.steps.includes(step));
  // A batch is through once each of its steps is through or failed: said once.
  const reportBatchesThrough = () => {
    for (const [b, w] of batches) {
      const { steps } = plan.batches[b];
      if (w.done || !steps.every((s) => through.has(s.id) || failed.has(s.id))) continue;
      w.done = true;
      const ready = steps.filter((s) => through.has(s.id)).length;
      emit({ app, step: 'batch', batch: b + 1, of: plan.surge.batches, ready, ms: Date.now() - w.t0 });
    }
  };
  return {
    begin() {
      if (plan.of) emit({ app, step: 'surge', ...plan.surge });
    },
    started(step) {
      const b = batchOf(step);
      if (!batches.has(b)) batches.set(b, { t0: Date.now(), done: false, lastRetire: null });
    },
    async through(step, r) {
      through.add(step.id);
      reportBatchesThrough();
      if (!r.retire) return; // nothing serves beside it (a plain start, a slot that went down first)
      // Its turn: now, or batch.retire ms after the batch's previous retirement (ms since epoch).
      const b = batchOf(step);
      const w = batches.get(b);
      const at = Math.max(Date.now(), (w.lastRetire ?? -Infinity) + plan.batches[b].retire);
      w.lastRetire = at;
      if (at > Date.now()) await new Promise((resolve) => setTimeout(resolve, at - Date.now()));
      await retire(step, r);
    },
    failed(step) {
      failed.add(step.id);
      reportBatchesThrough();
    },
  };
}
