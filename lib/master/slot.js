// One instance slot of an app (0..N-1): the worker in it, its state, and its history.
// The slot index survives restarts (it is the app's instance_var), so a replacement
// always lands in the same slot. All state changes go through #move (guideline 5).
import { EventEmitter } from 'node:events';
import { WORKER_STATES as S, assertMove, isRunning } from './states.js';
import { decideRestart, freshHistory } from './restart-policy.js';
import { WorkerProcess } from './worker-process.js';
import { workerAffinity } from './affinity.js';

export class Slot extends EventEmitter {
  /**
   * @param {object} o
   * @param {object} o.app      the App (lib/master/app.js) this slot belongs to
   * @param {number} o.index
   * @param {object} o.ctx      {agentPath, log}
   */
  constructor({ app, index, ctx }) {
    super();
    this.app = app;
    this.index = index;
    this.ctx = ctx;
    this.state = S.STOPPED;
    this.proc = null;
    this.startedAt = null;
    this.restarts = 0;
    this.history = freshHistory();
    this.lastExit = null;
    this.notReady = false;
    this.restartTimer = null;
    this.readyTimer = null;
    this.affinity = null; // {cpus, pinned} of the last fork (lib/master/affinity.js)
  }

  get pid() {
    return this.proc && !this.proc.exited ? this.proc.pid : null;
  }

  #move(to, info = {}) {
    const prev = this.state;
    assertMove(prev, to);
    this.state = to;
    this.emit('state', { state: to, prev, ...info });
  }

  /**
   * Launches a worker in this slot. Resolves when it is ready ({ready: true}) or, for a
   * first start, when the readiness deadline passes ({ready: false}, worker kept);
   * rejects with the exit if the worker dies before becoming ready.
   */
  start(reason = 'start') {
    clearTimeout(this.restartTimer);
    this.restartTimer = null;
    const config = this.app.config;
    const env = this.app.workerEnv(this.index);
    // Slot i's CPUs are recomputed from its index at every fork (restarts keep them).
    const { taskset, ...affinity } = workerAffinity(config, this.index, this.ctx.affinity);
    this.affinity = affinity;
    let proc;
    try {
      proc = new WorkerProcess({ app: config, env, stdio: this.app.stdio, agentPath: this.ctx.agentPath, cpus: taskset });
    } catch (err) {
      // fork itself threw (EAGAIN, bad cwd): treat as an immediate exit
      this.#move(S.STARTING, { reason });
      this.#move(S.EXITED, { code: null, signal: null, reason: `could not start: ${err.message}` });
      this.#afterExit({ code: null, signal: null, error: err.message }, 0);
      return Promise.reject(err);
    }
    this.proc = proc;
    proc.on('process-error', (err) => this.ctx.log.warn({ app: this.app.name, slot: this.index, pid: proc.pid, err: err.message }, 'worker process error'));
    this.startedAt = Date.now();
    this.notReady = false;
    this.#move(S.STARTING, { reason, pid: proc.pid });

    return new Promise((resolve, reject) => {
      const readyOn = config.ready_on;
      const becomeReady = () => {
        if (this.proc !== proc || this.state !== S.STARTING) return;
        clearTimeout(this.readyTimer);
        this.#move(S.ONLINE, { pid: proc.pid });
        resolve({ ready: true });
      };
      if (readyOn === 'listen') proc.once('listening', becomeReady);
      else if (readyOn === 'ready') proc.once('ready', becomeReady);
      else proc.once('spawn', () => { this.readyTimer = setTimeout(becomeReady, config.min_uptime); });

      if (readyOn !== 'spawn') {
        this.readyTimer = setTimeout(() => {
          if (this.proc !== proc || this.state !== S.STARTING) return;
          // Kept running (like PM2), but flagged and reported: the caller says so.
          this.notReady = true;
          this.#move(S.ONLINE, { pid: proc.pid, reason: `not ready after listen_timeout (${config.listen_timeout} ms)` });
          resolve({ ready: false });
        }, config.listen_timeout);
      }

      proc.once('exit', (exit) => {
        clearTimeout(this.readyTimer);
        if (this.proc !== proc) return;
        const wasOnline = this.state === S.ONLINE;
        this.#onExit(proc, exit);
        // Settles the promise if it has not been (no-op otherwise): died or stopped before ready.
        if (!wasOnline) reject(Object.assign(new Error(describeExit(exit)), { exit }));
      });
    });
  }

  #onExit(proc, exit) {
    const uptime = Date.now() - this.startedAt;
    this.lastExit = { ...exit, at: Date.now(), uptime_ms: uptime };
    if (this.state === S.STOPPING) {
      this.#move(S.STOPPED, { code: exit.code, signal: exit.signal });
      return;
    }
    this.#move(S.EXITED, { code: exit.code, signal: exit.signal, uptime_ms: uptime });
    this.#afterExit(exit, uptime);
  }

  #afterExit(exit, uptime) {
    const decision = decideRestart(this.app.config, this.history, { code: exit.code, signal: exit.signal, uptime });
    if (decision.action === 'stop') {
      this.#move(S.STOPPED, { reason: decision.reason });
      return;
    }
    this.history = decision.history;
    if (decision.action === 'errored') {
      this.#move(S.ERRORED, { reason: decision.reason, restarts: this.restarts });
      return;
    }
    this.restartTimer = setTimeout(() => {
      this.restartTimer = null;
      if (this.state !== S.EXITED) return;
      this.restarts++;
      // Failures of the replacement are handled by its own exit path.
      this.start(`restart after crash (${decision.reason})`).catch(() => {});
    }, decision.delay);
  }

  /** Graceful stop; resolves when the slot is stopped (or already was). */
  async stop() {
    clearTimeout(this.restartTimer);
    this.restartTimer = null;
    clearTimeout(this.readyTimer);
    if (this.state === S.EXITED || this.state === S.ERRORED) {
      this.#move(S.STOPPED, { reason: 'stopped' });
      return;
    }
    if (!isRunning(this.state)) return;
    const proc = this.proc;
    if (this.state !== S.STOPPING) this.#move(S.STOPPING, { pid: proc.pid });
    await proc.stop();
    // #onExit moved us to STOPPED.
  }

  /** A manual restart (or a start after stop/errored) clears the crash-loop history. */
  resetHistory() {
    this.history = freshHistory();
  }

  snapshot(now = Date.now()) {
    const running = this.state === S.ONLINE || this.state === S.STARTING || this.state === S.STOPPING;
    return {
      slot: this.index,
      pid: this.pid,
      status: this.state,
      uptime_ms: running && this.startedAt ? now - this.startedAt : 0,
      restarts: this.restarts,
      unstable_restarts: this.history.unstable,
      not_ready: this.notReady || undefined,
      last_exit: this.lastExit ?? undefined,
      cpus: this.affinity?.cpus ?? null,
      pinned: this.affinity?.pinned ?? false,
    };
  }
}

export function describeExit(exit) {
  if (exit.error) return `could not start: ${exit.error}`;
  return exit.signal ? `exited on signal ${exit.signal}` : `exited with code ${exit.code}`;
}
