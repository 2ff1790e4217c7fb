// The one executor of reload plans (reload-plan.js) on an app's real slots: `super reload`
// (App#reload) and the one-slot replacement of max_memory_restart (App#replaceSlot) both
// run through it, report in one vocabulary and end with one outcome.
import { nextSteps, settle } from './reload-plan.js';
import { WORKER_STATES as S } from './states.js';

// The steps of a reload, and who hears each: the client that asked for the reload
// (progress frames, rendered by lib/ctl/commands/reload.js), the subscribers of 'reload'
// events and the daemon log (event), or both.
//   begin   {app, of, changed, keep_config}                      client (the registry sends it)
//   forked  {app, slot, pid, oldPid, reason}                     event
//   ready   {app, slot, pid, oldPid, ready_ms, reason, done, of} both
//   retired {app, slot, pid, code, signal, reason}               event
//   scaled  {app, to}                                            client
//   done    the outcome                                          both (App#reload, the registry)
const HEARD_BY = Object.freeze({ forked: 'event', ready: 'both', retired: 'event', scaled: 'client' });

/** emit(step) for runReload: each step goes to those who hear it. */
export function reporter({ progress = () => {}, event = () => {} }) {
  return (step) => {
    const to = HEARD_BY[step.step];
    if (to !== 'event') progress(step);
    if (to !== 'client') event(step);
  };
}

/** What a plan needs to know of a slot: whether a worker serves in it (a replacement goes beside it). */
export const slotView = (slot) => ({ index: slot.index, serving: slot.state === S.ONLINE || slot.state === S.STARTING });

/**
 * Runs `plan` on the host's slots; resolves once every step has ended and every old
 * worker has retired.
 * @param {import('./reload-plan.js').Plan} plan
 * @param {object} o
 * @param {object} o.host  the app: {name, slot(i): Slot, addSlot(): Slot, dropSlot(i): Slot, adopt(config)}
 * @param {object} o.config  the config the new workers run
 * @param {string} o.reason  why, as 'reload' events and the daemon log say it
 * @param {(step: object) => void} o.emit  from reporter()
 * @returns {Promise<{app: string, ok: boolean, replaced: number[], kept: number[], ready_ms: number, total_ms: number, failed?: {slot, reason, exit?}}>}
 */
export function runReload(plan, { host, config, reason, emit }) {
  const t0 = Date.now();
  const app = host.name;
  const states = new Map();
  const retirements = [];
  let failure = null;
  let readyMs = null;
  let batch = 0;
  let done = 0;

  const steps = {
    // The slot itself tells, when the step starts, whether a worker still serves in it:
    // it may have crashed, or come back, since the plan was made.
    async replace(step) {
      const onForked = (pid, oldPid) => emit({ app, slot: step.slot, step: 'forked', pid, oldPid, reason });
      const r = await host.slot(step.slot).replace(config, { reason, onForked });
      retirements.push(r.retired.then((exit) => exit && emit({ app, slot: step.slot, step: 'retired', pid: r.oldPid, code: exit.code, signal: exit.signal, reason })));
      emit({ app, slot: step.slot, step: 'ready', pid: r.pid, oldPid: r.oldPid, ready_ms: r.ready_ms, reason, done: ++done, of: plan.of });
    },
    async add() {
      const slot = host.addSlot();
      slot.resetHistory();
      const r = await slot.start('scale', config);
      if (!r.ready) throw new Error(`not ready within listen_timeout (${config.listen_timeout} ms)`);
    },
    retire(step) {
      retirements.push(host.dropSlot(step.slot).stop());
      return Promise.resolve();
    },
  };

  // The replacements end where the plan adopts the target config (the end, for an `only` plan).
  const replacementsEnd = plan.adoptBefore ?? plan.batches.length;
  let adopted = false;
  return new Promise((resolve) => {
    const pump = () => {
      const next = nextSteps(plan, states);
      const running = [...states.values()].includes('running');
      // Leaving a scale batch whole: the app now has the target's count.
      for (; next.batch !== null && batch < next.batch; batch++) {
        if (plan.batches[batch].kind !== 'replace') emit({ app, step: 'scaled', to: plan.instances });
      }
      if (readyMs === null && (next.batch === null ? !running : next.batch >= replacementsEnd)) readyMs = Date.now() - t0;
      if (!adopted && next.batch !== null && next.batch === plan.adoptBefore) {
        adopted = true;
        host.adopt(config);
      }
      for (const step of next.start) launch(step);
      if (!next.start.length && !running) finish();
    };
    const launch = (step) => {
      states.set(step.id, 'running');
      steps[step.action](step).then(
        () => states.set(step.id, 'ok'),
        (err) => {
          states.set(step.id, 'failed');
          failure ??= { slot: step.slot, reason: err.message, exit: err.exit };
        },
      ).then(pump);
    };
    const finish = async () => {
      await Promise.all(retirements);
      const { ok, replaced, kept } = settle(plan, states);
      resolve({ app, ok, replaced, kept, ready_ms: readyMs, total_ms: Date.now() - t0, failed: failure ?? undefined });
    };
    pump();
  });
}
