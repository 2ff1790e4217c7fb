// An app: its resolved config, its slots, and the log files its workers write to.
// Its slots emit ('state', 'replace') and the app listens; a slot reaches the app only
// through the small host object it is given (#slotHost). The log files
// (lib/logs/app-logs.js) know no app: the app gives them its settings and the function
// that asks its workers to reopen.
import { Slot } from './slot.js';
import { AppLogs } from '../../logs/app-logs.js';
import { resolveLogSettings } from '../../logs/settings.js';
import { WorkerLogReports, reopenWorkerLogs } from './worker-logs.js';
import { appStatus, isRunning, WORKER_STATES as S } from './states.js';

export class App {
  /**
   * @param {object} config  a normalized app from lib/config
   * @param {object} ctx     {agentPath, log, home, policy(), onSlotState(app, slot, info), onReload(info)}
   * @param {object} [clientEnv]  environment of the `super start` that added it (PM2 does the same)
   */
  constructor(config, ctx, clientEnv) {
    this.config = config;
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
    this.busy = null; // name of the operation in progress, if any
    this.source = null; // {file, env}: where the config came from, re-read by reload
    this.lastReload = null; // outcome of the last reload, shown by ls/describe
    this.watchOff = null; // the watch paths `super watch <app> off` put aside, for `on` (registry.setWatch)
  }

  get name() {
    return this.config.name;
  }

  /** The environment of the worker in slot i, running `c`. */
  workerEnv(i, c = this.config) {
    return {
      ...this.clientEnv,
      ...c.env,
      [c.instance_var]: String(i),
      ...this.ctx.workerEnvExtra?.(c),
      SUPER_APP_NAME: c.name,
      SUPER_SLOT: String(i),
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

  /** The processes writing to slot's log files (null: every slot's); a reload's replacement too. */
  #writers(slot) {
    return this.slots.filter((s) => slot === null || s.index === slot).flatMap((s) => [s.proc, s.replacement]);
  }

  /** What a slot may ask of its app (lib/master/core/slot.js). */
  #slotHost = {
    name: () => this.name,
    config: () => this.config,
    env: (i, config) => this.workerEnv(i, config),
    stdio: (i) => this.stdioFor(i),
    launched: (proc) => this.logReports.follow(proc),
    // Another slot serves and is ready: a new worker can stay out of the rotation until ready().
    hasReadyPeer: (slot) => this.slots.some((s) => s !== slot && s.state === S.ONLINE && !s.notReady),
  };

  #newSlot(i) {
    const slot = new Slot({ host: this.#slotHost, index: i, ctx: this.ctx });
    slot.on('state', (info) => this.ctx.onSlotState(this, slot, info));
    slot.on('replace', (info) => this.ctx.onReload({ app: this.name, slot: slot.index, ...info }));
    return slot;
  }

  /** Takes a pending config (from a `start` while running) at the next (re)start. */
  #applyPendingConfig() {
    if (!this.pendingConfig) return;
    this.config = this.pendingConfig;
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

  async #startSlot(slot, reason) {
    slot.resetHistory();
    try {
      const r = await slot.start(reason);
      return { slot: slot.index, ready: r.ready };
    } catch (err) {
      return { slot: slot.index, ready: false, failed: err.message };
    }
  }

  async stop() {
    await Promise.all(this.slots.map((s) => s.stop()));
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
    this.config = { ...this.config, instances: count };
    if (this.pendingConfig) this.pendingConfig = { ...this.pendingConfig, instances: count };
    if (count < from) {
      const gone = this.slots.splice(count);
      await Promise.all(gone.map((s) => s.stop()));
      return [];
    }
    const results = [];
    while (this.slots.length < count) {
      const slot = this.#newSlot(this.slots.length);
      this.slots.push(slot);
      results.push(this.#startSlot(slot, 'scale'));
    }
    return Promise.all(results);
  }

  /**
   * Rolling reload: each slot in turn (at most reload_parallel at once) gets a ready,
   * probation-tested replacement running `config` before its old worker is retired.
   * The first failure stops the reload: the failed replacement is killed, slots not yet
   * replaced keep their old workers, replaced ones keep their new ones. Then the slot
   * count follows config.instances (new slots start ready-first, extra ones retire).
   * @param {object} config   the config to run (the file re-read, or the running one)
   * @param {(p: object) => void} progress
   */
  async reload(config, progress = () => {}) {
    const t0 = Date.now();
    const slots = this.slots.slice(0, config.instances);
    const parallel = Math.max(1, config.reload_parallel);
    const retirements = [];
    const replaced = [];
    let failure = null;
    let next = 0;
    const worker = async () => {
      while (!failure && next < slots.length) {
        const slot = slots[next++];
        try {
          const r = await slot.replace(config, { reason: 'reload' });
          replaced.push(slot.index);
          retirements.push(r.retired);
          progress({ app: this.name, step: 'ready', slot: slot.index, pid: r.pid, ready_ms: r.ready_ms, done: replaced.length, of: slots.length });
        } catch (err) {
          failure ??= { slot: slot.index, reason: err.message, exit: err.exit };
        }
      }
    };
    await Promise.all(Array.from({ length: Math.min(parallel, slots.length) }, worker));
    const readyMs = Date.now() - t0;

    if (!failure) {
      this.config = config;
      this.pendingConfig = null;
      if (config.instances > this.slots.length) {
        const outcomes = await this.scale(config.instances);
        const bad = outcomes.find((o) => !o.ready);
        if (bad) failure = { slot: bad.slot, reason: bad.failed ?? `not ready within listen_timeout (${config.listen_timeout} ms)` };
        else progress({ app: this.name, step: 'scaled', to: config.instances });
      } else if (config.instances < this.slots.length) {
        retirements.push(this.scale(config.instances));
        progress({ app: this.name, step: 'scaled', to: config.instances });
      }
    }
    await Promise.all(retirements);
    const outcome = {
      app: this.name,
      ok: !failure,
      replaced: replaced.sort((a, b) => a - b),
      kept: this.slots.filter((s) => !replaced.includes(s.index)).map((s) => s.index),
      ready_ms: readyMs,
      total_ms: Date.now() - t0,
      failed: failure ?? undefined,
    };
    this.lastReload = { at: Date.now(), ok: outcome.ok, replaced: outcome.replaced, failed: failure ? { slot: failure.slot, reason: failure.reason } : undefined };
    this.ctx.onReload({ app: this.name, step: 'done', ok: outcome.ok, ready_ms: outcome.ready_ms, total_ms: outcome.total_ms, failed: this.lastReload.failed });
    return outcome;
  }

  /**
   * Replaces one slot's worker ready-first, as a reload does (max_memory_restart):
   * resolves when the old worker has retired, or null when the app is busy (a reload,
   * stop...) or the slot is already being replaced. Rejects if the replacement fails.
   */
  async replaceSlot(index, reason) {
    const slot = this.slots[index];
    if (!slot || this.busy || slot.replacement) return null;
    this.busy = `replacing #${index}`;
    try {
      const r = await slot.replace(slot.config ?? this.config, { reason });
      await r.retired;
      return r;
    } finally {
      this.busy = null;
    }
  }

  get status() {
    return appStatus(this.slots.map((s) => s.state));
  }

  get running() {
    return this.slots.some((s) => isRunning(s.state) || s.state === S.EXITED);
  }
}
