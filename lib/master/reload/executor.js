// The one executor of reload plans (plan.js) on an app's real slots: `super reload`
// (App#reload) and the one-slot replacement of max_memory_restart (App#replaceSlot) both
// run through it, report in one vocabulary and end with one outcome.
import { nextSteps, settle } from './plan.js';
import { WORKER_STATES as S } from '../states.js';
import { retirementFor } from './retirement.js';
import { readyBound } from '../../error-messages.js';

// The steps of a reload, and who hears each: the client that asked for the reload
// (progress frames, rendered by lib/ctl/commands/reload.js), the subscribers of 'reload'
// events and the daemon log (event), or both.
//   begin   {app, of, changed, keep_config}                      client (the registry sends it)
//   surge   {app, batches, size, wanted, unavailable, room, memory} both (a surge plan, before its first batch)
//   down-first {app, slots, ports, cluster?}                   both (fork-mode slots whose worker holds its ports: each stops before its replacement starts)
//   forked  {app, slot, pid, oldPid, reason}                     event
//   probation {app, slot, pid}                                 event (the replacement is ready; its probation begins)
//   ready   {app, slot, pid, oldPid, ready_ms, reason, done, of} both (through probation: the slot runs it)
//   batch   {app, batch, of, ready, ms}                          both (a surge batch is through)
//   retired {app, slot, pid, code, signal, reason, asked_at, at} event (asked_at: when its stop began; at: its exit)
//   scaled  {app, to}                                            client
//   done    the outcome                                          both (App#reload, the registry)
const HEARD_BY = Object.freeze({ surge: 'both', 'down-first': 'both', forked: 'event', probation: 'event', ready: 'both', batch: 'both', retired: 'event', scaled: 'client' });

/**
 * emit(step) for runReload: each step goes to those who hear it.
 * @param {{progress?: (step: object) => void, event?: (step: object) => void}} o
 */
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
 * worker has retired. When an old worker retires is the plan's strategy (retirement.js:
 * rolling or surge), chosen once here.
 * @param {import('./plan.js').Plan} plan
 * @param {object} o
 * @param {object} o.host  the app: {name, slot(i): Slot, addSlot(): Slot, dropSlot(i): Slot, adopt(config)}
 * @param {import('../../config/index.js').AppConfig} o.config  the config the new workers run
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
  const retire = (step, r) => {
    const askedAt = Date.now();
    return r.retire().then((exit) => emit({ app, slot: step.slot, step: 'retired', pid: r.oldPid, code: exit.code, signal: exit.signal, reason, asked_at: askedAt, at: Date.now() }));
  };
  const retirement = retirementFor(plan, { app, emit, retire, beside: (p) => retirements.push(p) });

  const steps = {
    // The slot itself tells, when the step starts, whether a worker still serves in it:
    // it may have crashed, or come back, since the plan was made.
    async replace(step) {
      retirement.started(step);
      const onForked = (pid, oldPid) => emit({ app, slot: step.slot, step: 'forked', pid, oldPid, reason });
      // Ready: the step no longer holds the window (its probation overlaps the next boot).
      const onReady = (pid) => {
        emit({ app, slot: step.slot, step: 'probation', pid });
        states.set(step.id, 'probation');
        queueMicrotask(pump);
      };
      const slot = host.slot(step.slot);
      const r = await (step.down ? slot.replaceDownFirst(config, { reason, onForked, onReady }) : slot.replace(config, { reason, onForked, onReady }));
      emit({ app, slot: step.slot, step: 'ready', pid: r.pid, oldPid: r.oldPid, ready_ms: r.ready_ms, reason, done: ++done, of: plan.of });
      // Every replacement through probation: the app is all ready, whatever retirements remain.
      if (done === plan.of) readyMs ??= Date.now() - t0;
      await retirement.through(step, r);
    },
    async add() {
      const slot = host.addSlot();
      slot.resetHistory();
      const r = await slot.start('scale', config);
      if (!r.ready) throw new Error(`not ready ${readyBound(config)}`);
    },
    retire(step) {
      retirements.push(host.dropSlot(step.slot).retire(config.shutdown_delay ?? 0));
      return Promise.resolve();
    },
  };

  // The replacements end where the plan adopts the target config (the end, for an `only` plan).
  const replacementsEnd = plan.adoptBefore ?? plan.batches.length;
  let adopted = false;
  let pump;
  let nextTurn = Promise.resolve();
  retirement.begin();
  return new Promise((resolve) => {
    pump = () => {
      const next = nextSteps(plan, states);
      const running = [...states.values()].some((st) => st === 'running' || st === 'probation');
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
    // Each step starts in a turn of the event loop of its own: a fork blocks the daemon until
    // the child has exec'd (tens of ms each once a batch of boots shares the cores), and
    // between two forks the daemon answers its workers (under round-robin a worker's listen()
    // is a round trip to it: a replacement forked first gets ready while the others fork)
    // and its connections.
    const launch = (step) => {
      states.set(step.id, 'running');
      const turn = nextTurn.then(() => new Promise((resolve) => setImmediate(resolve)));
      nextTurn = turn;
      turn.then(() => steps[step.action](step)).then(
        () => states.set(step.id, 'ok'),
        (err) => {
          states.set(step.id, 'failed');
          failure ??= { slot: step.slot, reason: err.message, exit: err.exit };
          retirement.failed(step);
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
