// An app: its resolved config, its slots, and the log files its workers write to.
// Its slots emit 'state' and the app listens; a slot reaches the app only
// through the small host object it is given (#slotHost). The log files
// (lib/logs/app-logs.js) know no app: the app gives them its settings and the function
// that asks its workers to reopen.
import fs from 'node:fs';
import path from 'node:path';
import { Slot } from './slot.js';
import { planReload, runReload, reporter, slotView, workersThatFit, MEMORY_RESERVE, MEMORY_GROWTH } from '../reload/index.js';
import { memAvailable } from './host-memory.js';
import { heldPorts } from '../process/index.js';
import { AppLogs } from '../../logs/app-logs.js';
import { resolveLogSettings } from '../../config/log-settings.js';
import { keptCount } from '../../config/autoscale.js';
import { filteredCallerEnv } from '../../config/filter-env.js';
import { WorkerLogReports, reopenWorkerLogs } from './worker-logs.js';
import { appStatus, isRunning, WORKER_STATES as S } from '../states.js';

export class App {
  #config; // written only here: by a start, a scale, a reload, a file read again, watch on/off

  /**
   * @param {import('../../config/index.js').AppConfig} config  a normalized app from lib/config
   * @param {object} ctx     {agentPath, log, home, policy(), onSlotState(app, slot, info), onReload(info)}
   * @param {object} [clientEnv]  environment of the `super start` that added it (PM2 does the same)
   * @param {number|null} [scaledFrom]  (a saved dump) the file's instances when a command scaled it (keptCount)
   */
  constructor(config, ctx, clientEnv, scaledFrom = null) {
    this.#config = config;
    this.pendingConfig = null;
    this.ctx = ctx;
    this.clientEnv = clientEnv ?? {};
    this.slots = [];
    this.logs = new AppLogs({
      name: config.name,
      log: ctx.log,
      // Configs that did not pass through prepareLogs get the defaults.
      settings: () => this.config.logs ?? resolveLogSettings(this.config, null, ctx.home),
      reopenWriters: (slot) => reopenWorkerLogs(this.#writers(slot)),
    });
    this.logReports = new WorkerLogReports({ app: config.name, log: ctx.log });
    this.stderrMarks = new Map(); // slot -> {ino, size, at} of its stderr file when its worker started (#markStderr)
    this.busy = null; // name of the operation in progress, if any (set by the registry)
    this.source = null; // {file, env, cwd}: where the config came from (and where `super start` ran), re-read by reload
    this.lastReload = null; // outcome of the last reload, shown by ls/describe
    this.scaledFrom = scaledFrom; // the file's instances when a command (scale) set the count: it holds while the file says so (keptCount)
    this.lastAutoscale = null; // the last autoscale step and its outcome (set by the registry), shown by ls/describe
    this.stops = 0; // how many stops were asked: a start still waiting at the start gate is cancelled by one
    this.watchOff = null; // the watch paths `super watch <app> off` put aside, for `on` (setWatch)
  }

  get name() {
    return this.config.name;
  }

  /** The config its workers are started with (a slot keeps the one its own worker runs). */
  get config() {
    return this.#config;
  }

  /**
   * How many workers the app has: its slots (running, or kept while it is stopped), or the
   * count it starts with while it has none (never started, or a stopped app scaled).
   */
  get count() {
    return this.slots.length || this.#config.instances;
  }

  /**
   * The config the app runs with now: its file's (or dump's, or command line's) config with
   * what commands changed since (the count a scale or an autoscale set, watch on/off), its
   * instances the app's count. What ls, describe, save, upgrade and a reload compare with.
   */
  effectiveConfig() {
    const c = this.#config;
    const count = this.count;
    return count === c.instances ? c : { ...c, instances: count };
  }

  /**
   * The config `fileConfig` (its file read again: a start, a reload) gives this app: the
   * file's, with the count a scale or an autoscale made kept (config/autoscale.js keptCount).
   */
  keptFrom(fileConfig) {
    return keptCount(fileConfig, this.count, this.scaledFrom);
  }

  /** A stopped app's file read again: it is newer than a change noted while the app ran (a scale holds, as in a reload). */
  takeFileConfig(fileConfig) {
    this.#config = this.keptFrom(fileConfig);
    this.pendingConfig = null;
  }

  /** A reload of `fileConfig` went through: once the file's instances changed since a scale, its count is the app's again. */
  reloadedFrom(fileConfig) {
    if (fileConfig.instances !== this.scaledFrom) this.scaledFrom = null;
  }

  /** A command (`super scale`) sets the count: the file's is put aside until the file says another (keptCount); an autoscaled app's count is its autoscaler's. */
  holdCount() {
    if (!this.#config.autoscale) this.scaledFrom ??= (this.pendingConfig ?? this.#config).instances;
  }

  /** A stopped app's new count: it starts that many (its extra stopped slots go). */
  resize(count) {
    this.#config = { ...this.#config, instances: count };
    this.slots.splice(count);
  }

  /**
   * Watch mode on or off: on watches the paths it watched before it was turned off, else its
   * cwd. The new config replaces the old one (never edited in place). Returns the watched paths.
   */
  setWatch(on) {
    const c = this.#config;
    if (on && c.watch.length === 0) this.#config = { ...c, watch: this.watchOff ?? [c.cwd] };
    if (!on && c.watch.length > 0) {
      this.watchOff = c.watch;
      this.#config = { ...c, watch: [] };
    }
    return this.#config.watch;
  }

  /** The environment of the worker in slot i, running `c`. */
  workerEnv(i, c = this.config) {
    // PWD is the worker's directory, as a shell (and PM2) sets it, unless the app's env says.
    const base = { ...filteredCallerEnv(this.clientEnv, c.filter_env), PWD: c.cwd, ...c.env };
    return {
      ...base,
      // increment_var (PM2): instance i gets the variable's value + i (PORT 3000, 3001, ...)
      ...(c.increment_var && { [c.increment_var]: String((parseInt(base[c.increment_var], 10) || 0) + i) }),
      [c.instance_var]: String(i),
      ...this.ctx.workerEnvExtra?.(c),
      ...initVarsUnset(c.env),
      SUPER_APP_NAME: c.name,
      SUPER_SLOT: String(i),
      SUPER_DRAIN_TIMEOUT: String(c.drain_timeout), // how long a worker outlives a daemon that died (lib/worker/drain.cjs outliveDaemon)
      ...this.logs.agentEnv(i, c.logs),
    };
  }

  /** Log files of slot i (lib/logs): {out, err}. */
  logPaths(slot = 0) {
    return this.logs.paths(slot);
  }

  /** Workers write to their log files directly (no copy through the daemon): lib/logs/app-logs.js. */
  openLogs() {
    return this.logs.open(this.config.instances);
  }

  closeLogs() {
    this.logs.close();
  }

  /** stdout/stderr descriptors for the worker of slot i. */
  stdioFor(i) {
    return this.logs.stdioFor(i);
  }

  /**
   * Where the stderr file of slot i stood when its worker started: the stderr describe
   * shows is what the current workers wrote (a failed earlier start's lines, left in the
   * same file, would make a healthy app look broken). fstat of a descriptor the daemon
   * holds, once per fork: no path lookup.
   */
  #markStderr(i, fd) {
    if (typeof fd !== 'number') return;
    try {
      const { ino, size } = fs.fstatSync(fd);
      this.stderrMarks.set(i, { ino, size, at: Date.now() });
    } catch {
      this.stderrMarks.delete(i);
    }
  }

  /**
   * From where in the stderr file of `slot` (the app's, with merged logs) its current workers
   * wrote: {ino, from, at} (the file as it was then: a rotated file is new since; at: when the
   * first of them started), or null.
   */
  stderrSince(slot = 0) {
    const perSlot = this.config.merge_logs === false;
    const marks = (perSlot ? [this.stderrMarks.get(slot)] : this.slots.map((s) => this.stderrMarks.get(s.index))).filter(Boolean);
    if (marks.length === 0) return null;
    const { ino } = marks[0];
    const first = marks.filter((m) => m.ino === ino).reduce((a, m) => (m.size < a.size ? m : a));
    return { ino, from: first.size, at: first.at };
  }

  /** The processes writing to slot's log files (null: every slot's); a reload's replacement too. */
  #writers(slot) {
    return this.slots.filter((s) => slot === null || s.index === slot).flatMap((s) => [s.proc, s.replacement]);
  }

  /** What a slot may ask of its app (lib/master/apps/slot.js). */
  #slotHost = {
    name: () => this.name,
    config: () => this.config,
    env: (i, config) => this.workerEnv(i, config),
    // mark: a worker of a start, restart, reload or scale (not a crash restart): describe's stderr begins here
    stdio: (i, mark) => {
      const stdio = this.stdioFor(i);
      if (mark) this.#markStderr(i, stdio.err);
      return stdio;
    },
    launched: (proc) => this.logReports.follow(proc),
    // Another slot serves and is ready: a new worker can stay out of the rotation until ready().
    hasReadyPeer: (slot) => this.slots.some((s) => s !== slot && s.state === S.ONLINE && !s.notReady),
    restart: (slot, reason) => this.#restartSlot(slot, reason),
  };

  #newSlot(i) {
    const slot = new Slot({ host: this.#slotHost, index: i, ctx: this.ctx });
    slot.on('state', (info) => this.ctx.onSlotState(this, slot, info));
    return slot;
  }

  /** Takes a pending config (from a `start` while running) at the next (re)start. */
  #applyPendingConfig() {
    if (!this.pendingConfig) return;
    this.#config = this.pendingConfig;
    this.pendingConfig = null;
  }

  /** Starts every slot that is not running; resolves with each slot's outcome. */
  async start(reason = 'start') {
    this.#applyPendingConfig();
    await this.openLogs();
    while (this.slots.length < this.config.instances) this.slots.push(this.#newSlot(this.slots.length));
    const idle = this.slots.filter((s) => !isRunning(s.state));
    return Promise.all(idle.map((s) => this.#startSlot(s, reason)));
  }

  // Each start waits its turn at the daemon's start gate (start-gate.js): a large count
  // boots a few workers at a time. A stop or scale-down while it waits cancels it.
  async #startSlot(slot, reason) {
    slot.resetHistory();
    const stops = this.stops;
    const { leave, noRoom } = await this.ctx.startGate.enter(this.#pids());
    try {
      if (stops !== this.stops || !this.slots.includes(slot)) return { slot: slot.index, ready: false, failed: 'stopped before it started' };
      if (noRoom) {
        slot.refuseStart(reason, noRoom); // a failed start, with its backoff
        return { slot: slot.index, ready: false, failed: `could not start: ${noRoom}` };
      }
      const r = await slot.start(reason);
      return { slot: slot.index, ready: r.ready };
    } catch (err) {
      return { slot: slot.index, ready: false, failed: err.message, listen_refused: err.exit?.listen_refused };
    } finally {
      leave();
    }
  }

  /**
   * A crash restart of `slot` (its backoff over) waits its turn at the start gate too, so a
   * worker refused for memory is not forked by its next try either.
   */
  async #restartSlot(slot, reason) {
    const stops = this.stops;
    const { leave, noRoom } = await this.ctx.startGate.enter(this.#pids());
    try {
      if (stops !== this.stops || !this.slots.includes(slot) || slot.state !== S.EXITED) return;
      slot.restarts++; // counted here, not when the backoff ended: a restart cancelled at the gate is none
      if (noRoom) slot.refuseStart(reason, noRoom, slot.config);
      else await slot.start(reason, slot.config, { crash: true }).catch(() => {}); // a failure takes the slot's own exit path
    } finally {
      leave();
    }
  }

  #pids() {
    return this.slots.map((s) => s.pid).filter(Boolean);
  }

  /**
   * Graceful stop of every worker, each after its lame duck (shutdown_delay: not ready, still
   * serving) unless `lameDuck` is false.
   */
  async stop({ lameDuck = true } = {}) {
    this.stops++;
    const delay = lameDuck ? this.config.shutdown_delay ?? 0 : 0;
    if (delay > 0 && this.slots.some((s) => s.state === S.ONLINE)) this.ctx.log.info({ app: this.name, shutdown_delay_ms: delay }, `${this.name}: not ready for ${delay} ms (shutdown_delay), still serving, then draining`);
    await Promise.all(this.slots.map((s) => s.retire(delay)));
  }

  /** Hard restart: stop every worker, then start them again (with a pending config, if any). */
  async restart() {
    await this.stop();
    for (const s of this.slots) s.restarts++;
    return this.start('restart');
  }

  /** Changes the number of slots; new slots start, the highest slots stop and go. */
  async scale(count) {
    const from = this.slots.length;
    this.#config = { ...this.#config, instances: count };
    if (this.pendingConfig) this.pendingConfig = { ...this.pendingConfig, instances: count };
    if (count < from) {
      const gone = this.slots.splice(count);
      await Promise.all(gone.map((s) => s.retire(this.config.shutdown_delay ?? 0)));
      return [];
    }
    const results = [];
    while (this.slots.length < count) {
      const slot = this.#newSlot(this.slots.length);
      this.slots.push(slot);
      results.push(this.#startSlot(slot, 'scale'));
    }
    const outcomes = await Promise.all(results);
    // Keep-alive clients of the workers that served before move in part to the new ones.
    if (outcomes.some((o) => o.ready)) for (const s of this.slots.slice(0, from)) s.proc?.rebalance();
    return outcomes;
  }

  /**
   * Reload: each slot gets a ready, probation-tested replacement running `config` before
   * its old worker is retired; reload_strategy says how many at once (rolling:
   * reload_parallel booting; surge: batches of max_surge, shrunk to what the host's
   * memory holds). The first failure stops the reload: the failed replacement is killed,
   * slots not yet replaced keep their old workers, replaced ones keep their new ones.
   * Then the slot count follows config.instances (new slots start ready-first, extra
   * ones retire). The plan is reload/plan.js, run by reload/executor.js.
   * @param {import('../../config/index.js').AppConfig} config   the config to run (the file re-read, or the running one)
   * @param {(p: object) => void} progress
   */
  async reload(config, progress = () => {}) {
    const memory = config.reload_strategy === 'surge' ? await this.#measureMemory() : null;
    const emit = reporter({ progress, event: this.ctx.onReload });
    const downFirst = await this.#downFirst(this.slots.map((s) => s.index), emit);
    const plan = planReload({ slots: this.slots.map(slotView), target: config, memory, downFirst });
    const outcome = await runReload(plan, { host: this.#reloadHost(), config, reason: 'reload', emit });
    const failed = outcome.failed ? { slot: outcome.failed.slot, reason: outcome.failed.reason } : undefined;
    this.lastReload = { at: Date.now(), ok: outcome.ok, replaced: outcome.replaced, failed };
    this.ctx.onReload({ app: this.name, step: 'done', ok: outcome.ok, ready_ms: outcome.ready_ms, total_ms: outcome.total_ms, failed });
    return outcome;
  }

  /**
   * Replaces one slot's worker ready-first, as a reload does (max_memory_restart):
   * resolves with {pid, ready_ms} of the new worker once the old one has retired, or null
   * when the slot is gone or already being replaced (the registry marks the app busy
   * meanwhile, and skips a busy one). Rejects if the replacement fails (the old worker keeps serving).
   */
  async replaceSlot(index, reason) {
    const slot = this.slots[index];
    if (!slot || slot.replacement) return null;
    /** @type {{pid: number, ready_ms: number}[]} */
    const readySteps = [];
    const event = (step) => {
      if (step.step === 'ready') readySteps.push(step);
      this.ctx.onReload(step);
    };
    const downFirst = await this.#downFirst([index], reporter({ event }));
    const plan = planReload({ slots: this.slots.map(slotView), only: [index], downFirst });
    const outcome = await runReload(plan, { host: this.#reloadHost(), config: slot.config ?? this.config, reason, emit: reporter({ event }) });
    if (!outcome.ok) throw Object.assign(new Error(outcome.failed?.reason), outcome.failed); // failed: set when not ok
    slot.restarts++; // a replacement for memory or health is a restart, as PM2 counts it
    const ready = readySteps.at(-1);
    if (!ready) throw new Error('the replacement was never reported ready'); // never: a reload that succeeded reports it
    return { pid: ready.pid, ready_ms: ready.ready_ms };
  }

  /**
   * The slots (of `indexes`) whose fork-mode worker listens on TCP ports itself: a
   * replacement beside it would fail with EADDRINUSE, so it stops first (the slot is down
   * for a replacement's boot; cluster mode has no such gap). Said once, as a 'down-first' step.
   * @param {number[]} indexes  @param {(step: object) => void} emit
   * @returns {Promise<number[]>}
   */
  async #downFirst(indexes, emit) {
    const ports = new Set();
    const forked = indexes.filter((i) => this.slots[i]?.config?.exec_mode === 'fork' && this.slots[i].pid && (this.slots[i].state === S.ONLINE || this.slots[i].state === S.STARTING));
    const held = await heldPorts(forked.map((i) => this.slots[i].pid));
    for (const p of held.flat()) ports.add(`${p.address}:${p.port}`);
    const slots = forked.filter((_, k) => held[k].length > 0);
    if (slots.length) emit({ app: this.name, step: 'down-first', slots, ports: [...ports], cluster: clusterHint(this.config) });
    return slots;
  }

  /**
   * Why the host cannot take one more worker of this app (an autoscale step up), or null
   * when it can, or nothing says: the surge guard's rule, for one worker.
   * @returns {Promise<string|null>}
   */
  async roomForOneMore() {
    const memory = await this.#measureMemory();
    if (!memory || workersThatFit(memory) >= 1) return null;
    const mb = (n) => `${Math.round(n / 1048576)} MB`;
    return `the host has ${mb(memory.available)} available, and one more worker needs ${mb(memory.perWorker * MEMORY_GROWTH)} (its workers' ${mb(memory.perWorker)} with room to grow) beside the ${mb(MEMORY_RESERVE)} kept free`;
  }

  /** For the surge memory guard: the host's MemAvailable and the most a worker of this app uses; null if unknown. */
  async #measureMemory() {
    const pids = this.slots.map((s) => s.pid).filter(Boolean);
    const [available, used] = await Promise.all([memAvailable(), this.ctx.workerMemory?.(pids) ?? []]);
    const perWorker = Math.max(0, ...used.filter(Number.isFinite));
    return available !== null && perWorker > 0 ? { available, perWorker } : null;
  }

  /** What the reload executor may do to this app. */
  #reloadHost() {
    return {
      name: this.name,
      slot: (index) => this.slots[index],
      addSlot: () => {
        const slot = this.#newSlot(this.slots.length);
        this.slots.push(slot);
        return slot;
      },
      dropSlot: (index) => this.slots.splice(index, 1)[0],
      adopt: (config) => {
        this.#config = config;
        this.pendingConfig = null;
        this.logs.settingsChanged(); // log_rotate applies at a reload, as the other rotation settings
      },
    };
  }

  get status() {
    return appStatus(this.slots.map((s) => s.state));
  }

  get running() {
    return this.slots.some((s) => isRunning(s.state) || s.state === S.EXITED);
  }
}

/** How a fork-mode app could reload without a gap: cluster mode, where its workers share the daemon's socket. */
function clusterHint(c) {
  if (c.interpreter === 'node') return 'exec_mode: cluster reloads it without one';
  if (/^npm(-cli\.js)?$/.test(path.basename(c.script))) return 'exec_mode: cluster reloads it without one when its package script is node <file>';
  return undefined;
}

// What systemd hands the daemon (its notify socket, watchdog, socket activation) is the
// daemon's, and node:cluster copies the daemon's own environment into every worker: an
// undefined value keeps a variable out of the child's environment (child_process skips
// it). An app that pinged the watchdog from there would hide a stuck daemon.
const INIT_VARS = ['NOTIFY_SOCKET', 'WATCHDOG_USEC', 'WATCHDOG_PID', 'LISTEN_FDS', 'LISTEN_PID', 'LISTEN_FDNAMES'];
function initVarsUnset(appEnv = {}) {
  return Object.fromEntries(INIT_VARS.filter((k) => !Object.hasOwn(appEnv, k)).map((k) => [k, undefined]));
}
