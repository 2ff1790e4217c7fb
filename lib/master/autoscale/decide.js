// The autoscale decision of one app at one moment, pure: from its settings (lib/config/
// autoscale.js), its workers' last figures and what was true before, whether to add a
// worker, retire one, or wait. The autoscaler (autoscaler.js) calls it once per sample.
//
// - up: every worker is over one of the up bounds, without a break, for up.for;
// - down: every worker is under all the down bounds for down.for, and the workers left
//   would stay under the up bounds the load adds to (elu and in-flight requests are
//   shared out by the daemon's round-robin; a loop delay is not, and is not projected);
// - one step at a time, within min-max, at least `cooldown` after the last step (or the
//   app's start or reload), never while another operation holds the app.
// A worker without fresh figures (starting, or too busy to report) leaves the timers as
// they were and decides nothing.

/** @typedef {{elu: number|null, loop_delay: number|null, inflight: number|null}} Figures */
/** @typedef {{upSince: number|null, downSince: number|null, lastAt: number}} ScaleState */

const FIGURES = /** @type {const} */ (['elu', 'loop_delay', 'inflight']);

/**
 * @param {object} o
 * @param {import('../../config/autoscale.js').AutoscaleSettings} o.settings
 * @param {(Figures|null)[]} o.figures  one per worker of the app; null: none fresh
 * @param {ScaleState} o.state  what the last call returned (lastAt: the last step, start or reload)
 * @param {number} o.now  ms
 * @param {boolean} o.idle  no other operation holds the app
 * @returns {{state: ScaleState, step: {to: number, direction: 'up'|'down', reason: string, figures: Partial<Figures>}|null}}
 */
export function decideScale({ settings, figures, state, now, idle }) {
  const count = figures.length;
  if (count === 0 || figures.some((f) => f === null)) return { state, step: null };
  const { up, down } = settings;
  const over = figures.every((f) => FIGURES.some((k) => up[k] !== null && f[k] !== null && f[k] >= up[k]));
  const under = figures.every((f) => FIGURES.every((k) => down[k] === null || (f[k] !== null && f[k] <= down[k])));
  const next = { upSince: over ? (state.upSince ?? now) : null, downSince: under ? (state.downSince ?? now) : null, lastAt: state.lastAt };
  if (!idle || now - state.lastAt < settings.cooldown) return { state: next, step: null };
  const seen = means(figures);
  if (over && count < settings.max && now - next.upSince >= up.for) {
    return { state: next, step: { to: count + 1, direction: 'up', reason: `every worker over ${bounds(up, ' or ')} for ${seconds(now - next.upSince)}`, figures: seen } };
  }
  if (under && count > settings.min && now - next.downSince >= down.for && fitsIn(figures, count - 1, up)) {
    return { state: next, step: { to: count - 1, direction: 'down', reason: `every worker under ${bounds(down, ' and ')} for ${seconds(now - next.downSince)}`, figures: seen } };
  }
  return { state: next, step: null };
}

/** Whether the load of `figures` shared out by `workers` stays under every additive up bound. */
function fitsIn(figures, workers, up) {
  for (const k of /** @type {const} */ (['elu', 'inflight'])) {
    if (up[k] === null || figures.some((f) => f[k] === null)) continue;
    const total = figures.reduce((sum, f) => sum + f[k], 0);
    if (total / workers >= up[k]) return false;
  }
  return true;
}

/** The mean of each figure over the workers that report it, rounded for a log line. */
function means(figures) {
  /** @type {Partial<Figures>} */
  const out = {};
  for (const k of FIGURES) {
    const values = figures.map((f) => f[k]).filter((v) => v !== null);
    if (values.length) out[k] = Math.round((values.reduce((a, b) => a + b, 0) / values.length) * 100) / 100;
  }
  return out;
}

const bounds = (rule, joint) => FIGURES.filter((k) => rule[k] !== null).map((k) => `${k} ${rule[k]}${k === 'loop_delay' ? ' ms' : ''}`).join(joint);
const seconds = (ms) => `${Math.round(ms / 100) / 10} s`;
