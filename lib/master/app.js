// An app: its resolved config, its slots, and the log files its workers write to.
import fs from 'node:fs';
import path from 'node:path';
import { Slot } from './slot.js';
import { appStatus, isRunning, WORKER_STATES as S } from './states.js';

export class App {
  /**
   * @param {object} config  a normalized app from lib/config
   * @param {object} ctx     {agentPath, log, home, onSlotState(app, slot, info)}
   * @param {object} [clientEnv]  environment of the `super start` that added it (PM2 does the same)
   */
  constructor(config, ctx, clientEnv) {
    this.config = config;
    this.pendingConfig = null;
    this.ctx = ctx;
    this.clientEnv = clientEnv ?? {};
    this.slots = [];
    this.stdio = null;
    this.busy = null; // name of the operation in progress, if any
  }

  get name() {
    return this.config.name;
  }

  /** The environment of the worker in slot i. */
  workerEnv(i) {
    const c = this.config;
    return {
      ...this.clientEnv,
      ...c.env,
      [c.instance_var]: String(i),
      SUPER_APP_NAME: c.name,
      SUPER_SLOT: String(i),
    };
  }

  logPaths() {
    const dir = path.join(this.ctx.home, 'logs');
    return {
      out: this.config.out_file ?? path.join(dir, `${this.name}-out.log`),
      err: this.config.error_file ?? path.join(dir, `${this.name}-err.log`),
    };
  }

  /** Workers write to their log files directly (no copy through the daemon). */
  async openLogs() {
    if (this.stdio) return;
    const p = this.logPaths();
    await Promise.all([fs.promises.mkdir(path.dirname(p.out), { recursive: true }), fs.promises.mkdir(path.dirname(p.err), { recursive: true })]);
    const open = (file) => new Promise((res, rej) => fs.open(file, 'a', 0o640, (e, fd) => (e ? rej(e) : res(fd))));
    const out = await open(p.out);
    const err = p.err === p.out ? out : await open(p.err);
    this.stdio = { out, err, paths: p };
  }

  closeLogs() {
    if (!this.stdio) return;
    fs.close(this.stdio.out, () => {});
    if (this.stdio.err !== this.stdio.out) fs.close(this.stdio.err, () => {});
    this.stdio = null;
  }

  #newSlot(i) {
    const slot = new Slot({ app: this, index: i, ctx: this.ctx });
    slot.on('state', (info) => this.ctx.onSlotState(this, slot, info));
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

  get status() {
    return appStatus(this.slots.map((s) => s.state));
  }

  get running() {
    return this.slots.some((s) => isRunning(s.state) || s.state === S.EXITED);
  }
}
