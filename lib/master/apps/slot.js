// One instance slot of an app (0..N-1): the worker in it, its state, and its history.
// The slot index survives restarts and reloads (it is the app's instance_var), so a
// replacement always lands in the same slot. All state changes go through #move.
import { EventEmitter } from 'node:events';
import { WORKER_STATES as S, assertMove, isRunning } from '../states.js';
import { decideRestart, freshHistory } from './restart-policy.js';
import { WorkerProcess, takenOver } from '../process/index.js';
import { waitReady, survive } from './readiness.js';
import { workerAffinity } from '../settings/index.js';
import { lastStallCapture } from '../captures/index.js';
import { readyBound } from '../../error-messages.js';

const DEFER_ENV = Object.freeze({ SUPER_DEFER_TRAFFIC: '1' });

export class Slot extends EventEmitter {
  /**
   * @param {object} o
   * @param {object} o.host     what the slot may ask of its app (App#slotHost in app.js): name(),
   *   config(), env(i, config), stdio(i, mark), launched(proc), hasReadyPeer(slot)
   * @param {number} o.index
   * @param {object} o.ctx      {agentPath, log, policy()}
   */
  constructor({ host, index, ctx }) {
    super();
    this.host = host;
    this.index = index;
    this.ctx = ctx;
    /** @type {string} one of states.js S */
    this.state = S.STOPPED;
    this.proc = null;
    this.config = null; // the config the current worker runs (a reload changes it slot by slot)
    this.replacement = null; // the worker a reload is bringing up, until it takes over
    this.startedAt = null;
    this.restarts = 0;
    this.history = freshHistory();
    this.lastExit = null;
    this.notReady = false;
    this.listens = false;
    this.lameDuck = null; // the shutdown_delay its worker waits out before its drain (retire()): it serves, but not counted ready
    this.restartTimer = null;
    this.affinity = null; // {cpus, pinned} of the current worker (lib/master/settings/affinity.js)
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

  /** Whether a new worker can be kept out of the rotation until ready() (drain.cjs deferTraffic). */
  #canDefer(config) {
    // `auto` gives such an app round-robin (lib/connection-path-choice.js).
    return config.exec_mode === 'cluster' && config.ready_on === 'ready' && ['round-robin', 'auto'].includes(this.ctx.policy());
  }

  /** keepStderr: a crash restart (its predecessor's stderr is still this worker's story; describe shows it). */
  #fork(config, extraEnv, keepStderr = false) {
    const env = { ...this.host.env(this.index, config), ...extraEnv };
    // Slot i's CPUs are recomputed from its index at every fork (restarts and reloads keep them).
    const { taskset, ...affinity } = workerAffinity(config, this.index, this.ctx.affinity);
    const proc = new WorkerProcess({ app: config, env, stdio: this.host.stdio(this.index, !keepStderr), agentPath: this.ctx.agentPath, cpus: taskset });
    this.host.launched(proc);
    proc.affinity = affinity;
    proc.on('process-error', (err) => this.ctx.log.warn({ app: this.host.name(), slot: this.index, pid: proc.pid, err: err.message }, 'worker process error'));
    proc.on('drained', (m) => {
      if (m.hookErrors?.length) this.ctx.log.warn({ app: this.host.name(), slot: this.index, pid: proc.pid, errors: m.hookErrors.slice(0, 5) }, 'onShutdown hook failed');
    });
    return proc;
  }

  /** Makes `proc` this slot's worker: its exit from now on is this slot's business. */
  #adopt(proc, config) {
    this.proc = proc;
    this.config = config;
    this.affinity = proc.affinity;
    this.startedAt = Date.now();
    this.notReady = false;
    this.lameDuck = null;
    // Whether this slot's worker listens: a reload of a PM2 file's app then waits for the
    // replacement's listen (config.reload_ready_on), though the app is online at spawn.
    proc.once('listening', () => {
      if (this.proc === proc) this.listens = true;
    });
    proc.once('exit', (exit) => {
      if (this.proc === proc) this.#onExit(exit);
    });
  }

  /**
   * Launches a worker in this slot. Resolves when it is ready ({ready: true}) or, when
   * listen_timeout passes first, {ready: false} with the worker kept and flagged
   * not_ready (a first start has nothing to fall back on); rejects if it dies first.
   * crash: a restart after a crash (the stderr describe shows goes on from the crashed worker's start).
   */
  async start(reason = 'start', config = this.host.config(), { crash = false } = {}) {
    clearTimeout(this.restartTimer);
    this.restartTimer = null;
    // A crash restart or scale-up beside ready workers keeps out of the rotation until
    // ready(), as a reload replacement does; a first start has nobody to leave traffic to.
    const defer = this.#canDefer(config) && this.host.hasReadyPeer(this);
    let proc;
    try {
      proc = this.#fork(config, defer ? DEFER_ENV : {}, crash);
    } catch (err) {
      // fork itself threw (EAGAIN, bad cwd): treat as an immediate exit
      this.refuseStart(reason, err.message, config);
      throw err;
    }
    this.#adopt(proc, config);
    this.#move(S.STARTING, { reason, pid: proc.pid });
    const r = await waitReady(proc, config);
    if (this.proc !== proc || this.state !== S.STARTING) return r;
    if (r.ready) {
      this.#move(S.ONLINE, { pid: proc.pid, ready_ms: r.ms });
    } else {
      this.notReady = true;
      if (defer) proc.admit(); // kept although not ready: it must not refuse connections for ever
      this.#move(S.ONLINE, { pid: proc.pid, reason: `not ready after listen_timeout (${config.listen_timeout} ms)` });
    }
    return r;
  }

  /**
   * Ready-first replacement (reload, max_memory_restart): forks a worker with `config`
   * beside the current one, waits until it is ready (onReady) and has survived
   * `probation`, then makes it the slot's worker. The old worker keeps serving beside it
   * until the caller retires it (retire(): graceful stop, resolves with its exit), at
   * once (rolling) or staggered with its batch (surge). onReady(pid): the replacement
   * is ready and its probation begins.
   * If the replacement dies, or is not ready in time, it is killed and the old worker
   * keeps serving; the promise rejects with {slot, reason}. The executor of reloads
   * (reload/executor.js) calls this; onForked(pid, oldPid) tells it of the fork.
   * @param {import('../../config/index.js').AppConfig} config
   * @param {{reason?: string, onForked?: (pid: number|null, oldPid: number|null) => void, onReady?: (pid: number|null) => void}} [o]
   *   pid: null for a worker that could not be spawned
   * @returns {Promise<{ready_ms: number, pid: number|null, oldPid: number|null, retire: (() => Promise<{code, signal}>)|null}>}
   *   retire: null when no old worker serves beside the new one
   */
  async replace(config, { reason = 'reload', onForked = () => {}, onReady = () => {} } = {}) {
    if (!isRunning(this.state) || this.state === S.STOPPING) {
      // Nothing serves in this slot (crashed, errored, stopped): a plain start.
      return this.#startFresh(config, reason, onReady);
    }
    // Under round-robin, a wait_ready replacement takes no connections until ready().
    let proc;
    try {
      proc = this.#fork(config, this.#canDefer(config) ? DEFER_ENV : {});
    } catch (err) {
      throw Object.assign(new Error(`could not start: ${err.message}`), { slot: this.index });
    }
    this.replacement = proc;
    onForked(proc.pid, this.pid);
    let readyMs;
    try {
      const readyBy = config.reload_ready_on && this.listens ? { ...config, ready_on: config.reload_ready_on } : config;
      const r = await waitReady(proc, readyBy);
      if (!r.ready) throw new Error(`not ready ${readyBound(readyBy)}`);
      readyMs = r.ms;
      onReady(proc.pid);
      if (config.probation > 0) await survive(proc, config.probation);
      if (this.replacement !== proc) throw new Error('replacement abandoned (the slot was stopped)');
    } catch (err) {
      if (this.replacement === proc) this.replacement = null;
      await proc.kill();
      throw Object.assign(err, { slot: this.index, pid: proc.pid });
    }
    this.replacement = null;
    const old = this.proc;
    clearTimeout(this.restartTimer);
    this.restartTimer = null;
    this.#adopt(proc, config);
    this.history = freshHistory();
    // The slot kept serving (online) throughout; a crashed old worker left it exited.
    if (this.state === S.EXITED || this.state === S.ERRORED) this.#move(S.STARTING, { reason, pid: proc.pid });
    if (this.state === S.STARTING) this.#move(S.ONLINE, { pid: proc.pid, ready_ms: readyMs });
    // A fork-mode worker on the daemon's sockets retires once its replacement listens on them too
    // (takenOver); the old worker's lame duck (shutdown_delay) happens outside the slot, which
    // serves with the new one.
    return { ready_ms: readyMs, pid: proc.pid, oldPid: old?.pid ?? null, retire: old ? () => takenOver(proc, old, config.listen_timeout).then(() => lameDuck(config.shutdown_delay)).then(() => old.stop()) : null };
  }

  /**
   * Down-first replacement (surge reload with max_unavailable, when memory is short): the
   * old worker stops gracefully, then a worker with `config` starts and serves probation.
   * If it fails, it is stopped and the slot starts its old config again (the rejection
   * waits for that start), so the slot is down only for the length of the attempt.
   * @param {import('../../config/index.js').AppConfig} config
   * @param {{reason?: string, onForked?: (pid: number|null, oldPid: number|null) => void, onReady?: (pid: number|null) => void}} [o]
   *   pid: null for a worker that could not be spawned
   * @returns {Promise<{ready_ms: number, pid: number|null, oldPid: number|null, retire: null}>}
   */
  async replaceDownFirst(config, { reason = 'reload', onForked = () => {}, onReady = () => {} } = {}) {
    const oldConfig = this.config ?? this.host.config();
    const oldPid = this.pid;
    await this.stop();
    try {
      const r = await this.#startFresh(config, reason, onReady, (pid) => onForked(pid, oldPid));
      if (config.probation > 0) await survive(this.proc, config.probation);
      return { ...r, oldPid };
    } catch (err) {
      await this.stop();
      this.resetHistory();
      await this.start(`${reason} rolled back`, oldConfig).catch(() => {});
      throw Object.assign(err, { slot: this.index });
    }
  }

  /**
   * A plain start of `config` in a slot where nothing serves, as a replacement.
   * @param {import('../../config/index.js').AppConfig} config  @param {string} reason  @param {(pid: number) => void} onReady
   * @param {(pid: number) => void} [onForked]
   */
  async #startFresh(config, reason, onReady, onForked = () => {}) {
    this.resetHistory();
    const starting = this.start(reason, config);
    if (this.pid) onForked(this.pid);
    const r = await starting;
    if (!r.ready) throw Object.assign(new Error(`not ready ${readyBound(config)}`), { slot: this.index });
    onReady(this.pid);
    return { ready_ms: r.ms, pid: this.pid, oldPid: null, retire: null };
  }

  /**
   * A start that could not fork (fork threw, or the start gate found no memory for it):
   * counted as an immediate exit, so it is retried with the restart backoff and the slot
   * ends errored after max_restarts, as `ls` shows.
   * @param {string} reason  why it was started  @param {string} why  why it could not
   */
  refuseStart(reason, why, config = this.host.config()) {
    this.config = config;
    this.lastExit = { code: null, signal: null, error: why, at: Date.now(), uptime_ms: 0 };
    this.#move(S.STARTING, { reason });
    this.#move(S.EXITED, { code: null, signal: null, reason: `could not start: ${why}` });
    this.#afterExit({ code: null, signal: null, error: why }, 0);
  }

  #onExit(exit) {
    const uptime = this.startedAt === null ? 0 : Date.now() - this.startedAt; // set when the worker was adopted
    this.lastExit = { ...exit, at: Date.now(), uptime_ms: uptime };
    if (this.state === S.STOPPING) {
      this.#move(S.STOPPED, { code: exit.code, signal: exit.signal });
      return;
    }
    this.#move(S.EXITED, { code: exit.code, signal: exit.signal, uptime_ms: uptime });
    this.#afterExit(exit, uptime);
  }

  #afterExit(exit, uptime) {
    const decision = decideRestart(this.config, this.history, { code: exit.code, signal: exit.signal, error: exit.error, uptime });
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
      // A crashed worker comes back with the config it ran, through the start gate (which
      // counts the restart once it starts: a stop while it waits there cancels it). Failures
      // of the replacement are handled by its own exit path.
      this.host.restart(this, `restart after crash (${decision.reason})`);
    }, decision.delay);
  }

  /**
   * Lame duck, then graceful stop: an online worker first serves on for `delay` ms (a stop's,
   * a scale-down's shutdown_delay) counted as not ready (/readyz, the HAProxy agent), so a
   * load balancer sends its traffic elsewhere before the drain closes anything. Several
   * callers (a stop during a scale-down's delay) share the one delay.
   * @param {number} delay  ms; 0: stop at once
   */
  async retire(delay) {
    if (delay > 0 && this.state === S.ONLINE) {
      this.lameDuck ??= lameDuck(delay);
      await this.lameDuck;
    }
    await this.stop();
  }

  /** Graceful stop; resolves when the slot is stopped (or already was). */
  async stop() {
    clearTimeout(this.restartTimer);
    this.restartTimer = null;
    const pending = this.replacement;
    this.replacement = null;
    const killing = pending ? pending.kill() : null;
    if (this.state === S.EXITED || this.state === S.ERRORED) {
      this.#move(S.STOPPED, { reason: 'stopped' });
    } else if (isRunning(this.state)) {
      if (this.state !== S.STOPPING) this.#move(S.STOPPING, { pid: this.proc.pid });
      await this.proc.stop(); // #onExit moves us to STOPPED
    }
    await killing;
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
      lame_duck: (this.lameDuck !== null && this.state === S.ONLINE) || undefined,
      replacing: this.replacement?.pid ?? undefined,
      cpus: this.affinity?.cpus ?? null,
      pinned: this.affinity?.pinned ?? false,
      last_exit: this.lastExit ?? undefined,
      stall_capture: this.proc ? lastStallCapture(this.proc) : undefined, // profile_on_stall's last file
    };
  }
}

/** The wait of a lame duck: `ms` (0: none). */
function lameDuck(ms) {
  return ms > 0 ? new Promise((resolve) => setTimeout(resolve, ms)) : Promise.resolve();
}
