// Autoscaling (an app's `instances: { min, max }` and `autoscale:`). The agents of an
// autoscaled app report once per its metrics interval (the app's `metrics_interval`, else
// the daemon's), and the app decides at the pace of those reports: once every worker has
// reported since its last decision (report()), their figures go through decideScale. So
// an app's own short metrics_interval speeds its decisions without sampling every worker
// of the daemon more often. The daemon's sample (tick()) only keeps the list of autoscaled
// apps and says when one decides nothing for want of reports. A step is the registry's
// command (autoscale()), which holds the app while it runs, so no reload, scale or stop
// interleaves with it; a step waits for no other.
import { decideScale, freshState } from './decide.js';
import { WORKER_STATES as S } from '../states.js';
import { figuresText } from '../../scale-figures.js';

/** A worker whose figures count: online, ready, not being replaced. */
const serving = (w) => w.state === S.ONLINE && w.ready && w.pid;

/** How long an app may go without fresh figures from all its workers before the log says so. */
const MISSING_MS = 15_000;

export class Autoscaler {
  /** @type {Map<string, import('./decide.js').ScaleState>} app name -> its timers */
  #states = new Map();
  #stepping = new Set(); // apps with a step running
  /** @type {Map<string, Set<number> & {decidedAt: number}>} autoscaled app -> pids of its workers that reported since its last decision (when) */
  #rounds = new Map();

  /**
   * @param {object} o
   * @param {{autoscaled: () => object[], autoscaledApp: (name: string) => object|null, workerCount: (name: string) => number}} o.reader
   *   the registry's read-only face
   * @param {(pid: number, now: number) => import('./decide.js').Figures|null} o.figures  a
   *   worker's figures since the last call, null when its last report is stale (the monitor's scaleFigures)
   * @param {(pid: number, now: number) => boolean} o.fresh  whether a worker's last report is fresh (the monitor's scaleFresh)
   * @param {(app: string, step: object) => Promise<object|null>} o.step  the registry's autoscale()
   * @param {import('../../logs/json-logger.js').JsonLogger} o.log
   */
  constructor({ reader, figures, fresh, step, log }) {
    this.reader = reader;
    this.figures = figures;
    this.fresh = fresh;
    this.step = step;
    this.log = log;
  }

  /** The monitor's sample just ended: which apps autoscale, and which of them lack reports. */
  tick(now = Date.now()) {
    const apps = this.reader.autoscaled();
    const names = new Set(apps.map((a) => a.name));
    for (const name of this.#states.keys()) if (!names.has(name)) this.#states.delete(name);
    for (const name of this.#missing.keys()) if (!names.has(name)) this.#missing.delete(name);
    for (const name of this.#rounds.keys()) if (!names.has(name)) this.#rounds.delete(name);
    for (const app of apps) {
      if (!app.running) {
        this.#states.delete(app.name); // a start begins a new cooldown
        this.#missing.delete(app.name);
        continue;
      }
      if (!this.#rounds.has(app.name)) this.#rounds.set(app.name, Object.assign(new Set(), { decidedAt: 0 }));
      this.#noteMissing(app, now);
    }
  }

  /**
   * Worker `pid` of app `name` reported (every `interval` ms); once all its workers have since
   * the app's last decision, and half an interval has gone by, the app decides. The half
   * interval: reports asked by `ls` or a scrape come in between, and a decision on a few ms
   * of figures would weigh as much as one on a whole interval.
   */
  report(name, pid, now = Date.now(), interval = 0) {
    const round = this.#rounds.get(name);
    if (!round) return; // not autoscaled, or not seen by a sample yet
    round.add(pid);
    // O(1) for all but the report that completes a round: a worker may send reports in a flood.
    if (now - round.decidedAt < interval / 2 || round.size < this.reader.workerCount(name)) return;
    const app = this.reader.autoscaledApp(name);
    if (!app) return void this.#rounds.delete(name);
    if (!app.workers.every((w) => w.pid && round.has(w.pid))) {
      // A pid of a worker replaced since: dropped now, so the count above holds again.
      for (const p of round) if (!app.workers.some((w) => w.pid === p)) round.delete(p);
      return;
    }
    round.clear();
    round.decidedAt = now;
    if (app.running) this.#consider(app, now);
  }

  #consider(app, now) {
    const state = this.#states.get(app.name) ?? freshState(now);
    if (app.lastReloadAt > state.lastAt) state.lastAt = app.lastReloadAt; // its samples before are dropped
    const figures = app.workers.map((w) => (serving(w) ? this.figures(w.pid, now) : null));
    const idle = !app.busy && !this.#stepping.has(app.name);
    const { state: next, step } = decideScale({ settings: app.autoscale, figures, state, now, idle });
    this.#states.set(app.name, next);
    if (step) this.#run(app.name, { ...step, from: figures.length });
  }

  /** @type {Map<string, {since: number, said: boolean}>} apps with a worker without fresh figures, since when */
  #missing = new Map();

  /** Says once (per stretch) when an app decided nothing for MISSING_MS: a worker of it sends no fresh figures. */
  #noteMissing(app, now) {
    const gone = app.workers.map((w, i) => (serving(w) && this.fresh(w.pid, now) ? null : `#${i}`)).filter(Boolean);
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
    this.#rounds.clear();
  }
}
