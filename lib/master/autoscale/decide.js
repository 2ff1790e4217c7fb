// The autoscale decision of one app at one moment, pure: from its settings (lib/config/
// autoscale.js), its workers' figures at each sample and what was seen before, whether to
// add a worker, retire one, or wait. The autoscaler (autoscaler.js) calls it once per round
// of the app's reports (every worker reported since the last call).
//
// Each sample keeps, per figure, the least and the most any worker reported and their sum.
// Over the last `for` of samples (all taken since the last step, start or reload):
// - up: the least busy worker's figure, averaged, is at or over an up bound (any one): one
//   sample of a busy worker that dips under the bound does not start the wait again;
// - down: the busiest worker's figure is at or under every down bound in every second (a
//   step down waits for the load to have stayed low: one busy second holds it off, as
//   Kubernetes' scale-down stabilization keeps the highest recommendation of its window;
//   samples closer together are averaged per second, so that a quarter second with three
//   requests in it does not count as a busy worker),
//   and the workers left would stay under the up bounds the load adds to (elu and
//   in-flight requests are shared out by the daemon's round-robin; a loop delay is not
//   projected).
// A worker that shed requests (overload:) in a sample reads as at least at every up bound
// there: shedding keeps its ELU, loop delay and in-flight count low by refusing the load
// past its capacity, and that load is what autoscale must add a worker for (nor may it
// retire one while any sheds).
// One step at a time, within min-max, at least `cooldown` after the last step (or the app's
// start or reload), never while another operation holds the app. A worker without fresh
// figures (starting, or too busy to report) adds no sample and decides nothing.

import { SCALE_FIGURES as FIGURES, figureText } from '../../scale-figures.js';

/** @typedef {{elu: number|null, loop_delay: number|null, inflight: number|null, shed?: number}} Figures  shed: requests refused by overload shedding since the last sample */
/** @typedef {{t: number, lo: Figures, hi: Figures, sum: Figures, n: number}} Sample  per figure: least, most, sum over the n workers */
/** @typedef {{samples: Sample[], lastAt: number}} ScaleState */

const MAX_SAMPLES = 4096; // per app: the memory a rule's window may take, whatever its `for`
const SECOND_MS = 900; // what the down rule averages over: a second, less timers' lateness

/** A state that starts counting at `now` (an app's start, or the end of a step). */
export const freshState = (now) => ({ samples: [], lastAt: now });

/**
 * @param {object} o
 * @param {import('../../config/autoscale.js').AutoscaleSettings} o.settings
 * @param {(Figures|null)[]} o.figures  one per worker of the app; null: none fresh
 * @param {ScaleState} o.state  what the last call returned
 * @param {number} o.now  ms
 * @param {boolean} o.idle  no other operation holds the app
 * @returns {{state: ScaleState, step: {to: number, direction: 'up'|'down', reason: string, figures: Partial<Figures>}|null}}
 */
export function decideScale({ settings, figures, state, now, idle }) {
  const count = figures.length;
  if (count === 0 || figures.some((f) => f === null)) return { state, step: null };
  const { up, down } = settings;
  const keep = Math.max(up.for, down.for);
  // The samples since the last step within the longest `for`, and the one before them: a
  // window is full once a sample at least `for` old is there.
  const since = state.samples.filter((s) => s.t > state.lastAt);
  const inside = since.findIndex((s) => s.t >= now - keep);
  const load = /** @type {Figures[]} */ (figures).map((f) => ((f.shed ?? 0) > 0 ? atUpBounds(f, up) : f));
  let samples = [...since.slice(inside === -1 ? Math.max(0, since.length - 1) : Math.max(0, inside - 1)), sample(load, now)];
  // A long `for` at a short interval: every other sample goes (the means stay about right).
  if (samples.length > MAX_SAMPLES) samples = samples.filter((_, i) => i % 2 === 1);
  const next = { samples, lastAt: state.lastAt };
  if (!idle || now - state.lastAt < settings.cooldown) return { state: next, step: null };
  const upWindow = windowOf(samples, now, up.for);
  if (upWindow && count < settings.max) {
    const over = FIGURES.filter((k) => up[k] !== null && mean(upWindow, 'lo', k) >= up[k]);
    if (over.length) return { state: next, step: { to: count + 1, direction: 'up', reason: `every worker over ${bounds(up, over, ' or ')} on average for ${seconds(up.for)}`, figures: means(upWindow) } };
  }
  const downWindow = windowOf(samples, now, down.for);
  if (downWindow && count > settings.min) {
    const under = FIGURES.every((k) => down[k] === null || mostPerSecond(downWindow, 'hi', k) <= down[k]);
    const fits = FIGURES.every((k) => k === 'loop_delay' || up[k] === null || mean(downWindow, 'sum', k) / (count - 1) < up[k]);
    if (under && fits) return { state: next, step: { to: count - 1, direction: 'down', reason: `every worker under ${bounds(down, FIGURES.filter((k) => down[k] !== null), ' and ')} for ${seconds(down.for)}`, figures: means(downWindow) } };
  }
  return { state: next, step: null };
}

/** A shedding worker's figures: each at least at its up bound (a figure without one as it is). */
function atUpBounds(f, up) {
  const out = { ...f };
  for (const k of FIGURES) if (up[k] !== null) out[k] = Math.max(f[k] ?? up[k], up[k]);
  return out;
}

/** One sample: per figure, the least and the most a worker reported, and their sum (null: a worker has none). */
function sample(figures, t) {
  const lo = {}, hi = {}, sum = {};
  for (const k of FIGURES) {
    const values = figures.map((f) => f[k]);
    const known = values.every((v) => v !== null && v !== undefined);
    lo[k] = known ? Math.min(...values) : null;
    hi[k] = known ? Math.max(...values) : null;
    sum[k] = known ? values.reduce((a, b) => a + b, 0) : null;
  }
  return { t, lo: /** @type {Figures} */ (lo), hi: /** @type {Figures} */ (hi), sum: /** @type {Figures} */ (sum), n: figures.length };
}

/** The samples of the last `ms` (for 0: the last one), when the samples since the last step reach back that far; else null. */
function windowOf(samples, now, ms) {
  if (now - samples[0].t < ms) return null;
  return ms === 0 ? samples.slice(-1) : samples.filter((s) => s.t > now - ms);
}

/** The mean of `which` of figure `k` over `samples`; NaN when a sample lacks it (a bound is then not met). */
function mean(samples, which, k) {
  let total = 0;
  for (const s of samples) {
    if (s[which][k] === null) return Number.NaN;
    total += s[which][k];
  }
  return total / samples.length;
}

/**
 * The largest mean of `which` of figure `k` over any second of `samples` (each sample with
 * those of the 0.9 s before it: a sample a second, a little late or early, is its own
 * mean); NaN when a sample lacks it.
 */
function mostPerSecond(samples, which, k) {
  let top = -Infinity;
  let from = 0;
  let total = 0;
  for (let i = 0; i < samples.length; i++) {
    const v = samples[i][which][k];
    if (v === null) return Number.NaN;
    total += v;
    while (samples[from].t <= samples[i].t - SECOND_MS) total -= samples[from++][which][k];
    top = Math.max(top, total / (i - from + 1));
  }
  return top;
}

/** Each figure's mean over the window (of the workers' mean at each sample), rounded for a log line. */
function means(samples) {
  /** @type {Partial<Figures>} */
  const out = {};
  for (const k of FIGURES) {
    const m = mean(samples, 'sum', k) / (samples.at(-1)?.n ?? 1);
    if (Number.isFinite(m)) out[k] = Math.round(m * 100) / 100;
  }
  return out;
}

const bounds = (rule, keys, joint) => keys.map((k) => figureText(k, rule[k])).join(joint);
const seconds = (ms) => `${Math.round(ms / 100) / 10} s`;
