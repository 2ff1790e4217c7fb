// Autoscaling (an app's `instances: { min, max }` and `autoscale:`): after each metrics
// sample the monitor calls tick(); each autoscaled app's workers' last figures (their
// agents report every interval while the app autoscales) go through decideScale. A step
// is the registry's command (autoscale()), which holds the app while it runs, so no
// reload, scale or stop interleaves with it; a step waits for no other.
import { decideScale, freshState } from './decide.js';
import { WORKER_STATES as S } from '../states.js';
import { figuresText } from '../../scale-figures.js';

/** How long an app may go without fresh figures from all its workers before the log says so. */
const MISSING_MS = 15_000;

export class Autoscaler {
  /** @type {Map<string, import('./decide.js').ScaleState>} app name -> its timers */
  #states = new Map();
  #stepping = new Set(); // apps with a step running

  /**
   * @param {object} o
   * @param {{autoscaled: () => object[]}} o.reader  the registry's read-only face
   * @param {(pid: number, now: number) => import('./decide.js').Figures|null} o.figures  a
   *   worker's last fresh figures (the monitor's scaleFigures)
   * @param {(app: string, step: object) => Promise<object|null>} o.step  the registry's autoscale()
   * @param {import('../../logs/json-logger.js').JsonLogger} o.log
   */
  constructor({ reader, figures, step, log }) {
    this.reader = reader;
    this.figures = figures;
    this.step = step;
    this.log = log;
  }

  /** One look at every autoscaled app (the monitor's sample just ended). */
  tick(now = Date.now()) {
    const apps = this.reader.autoscaled();
    const names = new Set(apps.map((a) => a.name));
    for (const name of this.#states.keys()) if (!names.has(name)) this.#states.delete(name);
    for (const name of this.#missing.keys()) if (!names.has(name)) this.#missing.delete(name);
    for (const app of apps) this.#consider(app, now);
  }

  #consider(app, now) {
    if (!app.running) {
      this.#states.delete(app.name); // a start begins a new cooldown
      return;
    }
    const state = this.#states.get(app.name) ?? freshState(now);
    if (app.lastReloadAt > state.lastAt) state.lastAt = app.lastReloadAt; // its samples before are dropped
    const figures = app.workers.map((w) => (w.state === S.ONLINE && w.ready && w.pid ? this.figures(w.pid, now) : null));
    this.#noteMissing(app, figures, now);
    const idle = !app.busy && !this.#stepping.has(app.name);
    const { state: next, step } = decideScale({ settings: app.autoscale, figures, state, now, idle });
    this.#states.set(app.name, next);
    if (step) this.#run(app.name, { ...step, from: figures.length });
  }

  /** @type {Map<string, {since: number, said: boolean}>} apps with a worker without fresh figures, since when */
  #missing = new Map();

  /** Says once (per stretch) when an app decided nothing for MISSING_MS: a worker of it sends no fresh figures. */
  #noteMissing(app, figures, now) {
    const gone = figures.map((f, i) => (f === null ? `#${i}` : null)).filter(Boolean);
    if (gone.length === 0) return void this.#missing.delete(app.name);
    const m = this.#missing.get(app.name) ?? { since: now, said: false };
    this.#missing.set(app.name, m);
    if (m.said || now - m.since < MISSING_MS) return;
    m.said = true;
    this.log.warn({ app: app.name, workers: gone }, `${app.name}: autoscale decides nothing: ${gone.map((g) => `${app.name}${g}`).join(', ')} sent no fresh figures for ${Math.round((now - m.since) / 1000)} s (starting, stopped, or too busy to report)`);
  }

  async #run(name, step) {
    this.#stepping.add(name);
    this.log.info({ app: name, autoscale: step }, `${name}: autoscale ${step.direction} ${step.from} -> ${step.to} workers (${step.reason}; ${figuresText(step.figures)})`);
    try {
      const r = await this.step(name, step);
      if (!r) this.log.info({ app: name }, `${name}: autoscale ${step.direction} not made: the app was busy or stopped meanwhile`);
      else if (r.refused) this.log.warn({ app: name, refused: r.refused }, `${name}: autoscale ${step.direction} refused: ${r.refused}`);
      else if (r.failed) this.log.error({ app: name, failed: r.failed }, `${name}: autoscale ${step.direction} failed: ${r.failed}; back to ${r.workers} workers`);
      else this.log.info({ app: name, workers: r.workers }, `${name}: autoscale ${step.direction} done: ${r.workers} workers`);
    } catch (err) {
      this.log.error({ app: name, err: err.message }, `${name}: autoscale ${step.direction} failed: ${err.message}`);
    } finally {
      this.#stepping.delete(name);
      // The cooldown runs from the end of the step (a new worker's boot is not part of it),
      // and the timers start again with the new count.
      this.#states.set(name, freshState(Date.now()));
    }
  }

  close() {
    this.#states.clear();
    this.#missing.clear();
  }
}
