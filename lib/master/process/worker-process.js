// One running worker process behind one small interface, whatever launched it
// (cluster worker or fork-mode child): the rest of the daemon never asks which.
//
// Events: 'spawn', 'listening' (address), 'ready', 'drained' ({hookErrors}), 'metrics'
// (the agent's report), 'log-error' / 'log-resumed' ({stream, code, slot[, dropped]}),
// 'logs-reopened', 'diagnostic' ({id, ok, ...}: lib/master/captures/), 'exit' ({code,
// signal[, listen_refused]}: the daemon's reason if it refused a listen()), 'process-error'.
// What the agent says reaches them through one dispatcher (agent-channel.js).
// stop() -> Promise<{code, signal}>: drain, kill_signal, then SIGKILL; kill() -> the same
// promise, at once with SIGKILL.
import { EventEmitter } from 'node:events';
import { FROM_AGENT, TO_AGENT, PM2 } from '../../ipc/agent-protocol.js';
import { forkClusterWorker } from './launch-cluster.js';
import { spawnForkWorker } from './launch-fork.js';
import { signalGroup, reapGroup } from './process-group.js';
import { trackGroup } from './group-record.js';
import { unprotectWorker } from './oom-score.js';
import { strayDescendants, reapStrays } from './stray-processes.js';
import { listenToAgent, tellAgent } from './agent-channel.js';
import { releasePath } from './connection-path.js';
import { listenRefusal, stickySession, sharesListen, shareListen, sharedListenClosed, takeDaemonRefusals } from './cluster-internals/index.js';

/**
 * The agent's report with the connections the daemon refused for the worker's app since its
 * last one (cluster-internals/handoff-shedding.js, credited to this worker) added to its shed
 * count, and `shedding` while the daemon refuses: one figure for the app's shedding, wherever
 * a request was refused.
 */
function withDaemonRefusals(worker, report) {
  const daemon = takeDaemonRefusals(worker);
  if (!daemon || !report.overload) return report;
  const o = report.overload;
  return { ...report, overload: { ...o, shed: (o.shed ?? 0) + daemon.count, shedding: o.shedding || daemon.recent } };
}

/** Every WorkerProcess created, whoever creates it ('new', proc): the metrics monitor listens. */
export const workerProcesses = new EventEmitter();

export class WorkerProcess extends EventEmitter {
  /** @param {{app: import('../../config/index.js').AppConfig, env: object, stdio: {out: number, err: number}, agentPath: string, cpus?: string|null}} opts  cpus: the worker's CPU list for taskset (affinity.js) */
  constructor(opts) {
    super();
    this.kind = opts.app.exec_mode;
    this.exited = null;
    this.unreportedRefusals = 0; // set at exit (#onExit), added to its slot's shed count by the monitor
    /** @type {object|null} the CPUs the slot gave it, {cpus, pinned} (lib/master/settings/affinity.js) */
    this.affinity = null;
    this.killSignal = opts.app.kill_signal;
    this.killTimeout = opts.app.kill_timeout;
    this.drainTimeout = opts.app.drain_timeout;
    this.shutdownMessage = opts.app.shutdown_with_message;
    // The agent drains cluster workers, and fork-mode ones whose ports are the daemon's sockets
    // (shared-listen.js: a replacement serves beside them) unless the app stops itself on PM2's
    // 'shutdown' message; agent.cjs says why not other fork-mode children.
    this.sharedListen = sharesListen(opts.app);
    this.canDrain = this.kind === 'cluster' || (this.sharedListen && !this.shutdownMessage);
    if (this.kind === 'cluster') {
      const w = forkClusterWorker(opts);
      this.worker = w;
      this.child = w.process;
      w.on('online', () => this.emit('spawn'));
      w.on('listening', (address) => this.emit('listening', address));
      w.on('exit', (code, signal) => this.#onExit(code, signal));
      // cluster re-emits the child's 'error' (spawn failure, EPIPE on a dead channel) on
      // the Worker: unhandled, it would throw in the daemon.
      w.on('error', (err) => this.#onError(err));
    } else {
      const c = spawnForkWorker(opts);
      this.child = c;
      c.on('spawn', () => this.emit('spawn'));
      c.on('error', (err) => this.#onError(err));
      c.on('exit', (code, signal) => this.#onExit(code, signal));
    }
    this.pid = this.child.pid ?? null;
    this.strays = []; // processes it started outside its group, read when it is asked to stop
    if (this.pid) {
      trackGroup(this.pid, this.kind === 'cluster' ? this.drainTimeout : 0); // it leads its process group (exec-prefix.js); a cluster worker outlives a dead daemon for drain_timeout
      unprotectWorker(this.pid); // the OOM killer takes it before the daemon (oom-score.js)
    }
    this.createdAt = Date.now();
    this.appName = opts.app.name;
    this.slotIndex = Number(opts.env.SUPER_SLOT);
    listenToAgent(this.worker ?? this.child, this.#agentHandlers());
    // Node workers (cluster, or fork mode with interpreter node) run the agent and report.
    this.reportInterval = typeof this.child.send === 'function' ? Number(opts.env.SUPER_METRICS_INTERVAL ?? 1000) : 0;
    workerProcesses.emit('new', this);
  }

  // What the agent says, one handler per message (fields already checked by its guard).
  // The slot in a log report is this worker's, whatever the message claims.
  #agentHandlers() {
    return {
      [FROM_AGENT.READY]: () => this.emit('ready'),
      [FROM_AGENT.DRAINED]: (m) => this.#onDrained(m),
      [FROM_AGENT.METRICS]: (report) => this.emit('metrics', this.worker ? withDaemonRefusals(this.worker, report) : report),
      [FROM_AGENT.LOG_ERROR]: (e) => this.emit('log-error', { ...e, slot: this.slotIndex }),
      [FROM_AGENT.LOG_RESUMED]: (e) => this.emit('log-resumed', { ...e, slot: this.slotIndex }),
      [FROM_AGENT.LOGS_REOPENED]: () => this.emit('logs-reopened'),
      [FROM_AGENT.DIAGNOSTIC_DONE]: (m) => this.emit('diagnostic', m),
      [FROM_AGENT.STICKY_SESSION]: (m) => this.worker && stickySession(this.worker, m.sid),
      [FROM_AGENT.LISTEN]: (m) => this.sharedListen && shareListen(this, m),
      [FROM_AGENT.LISTEN_CLOSED]: (m) => this.sharedListen && sharedListenClosed(this, m),
    };
  }

  // 'drained' counts only once, for the drain the daemon asked (an unasked one carrying
  // hookErrors would be logged per message).
  #onDrained(m) {
    if (!this.drainAsked) return;
    this.drainAsked = false;
    this.emit('drained', m);
  }

  // A process that could not be spawned (EAGAIN at a pids limit, ENOENT) has no pid and
  // will never emit 'exit': its start failed now. Cluster drops such a worker by itself
  // (its exitCode is set, its channel closes). Other errors: the exit path handles the rest.
  #onError(err) {
    this.emit('process-error', err);
    if (this.child.pid === undefined) this.#onExit(null, null, err);
  }

  #onExit(code, signal, error) {
    if (this.exited) return;
    this.exited = { code, signal, error: error?.message };
    // Why the daemon refused its last listen(), if it did: the failure report shows it.
    const refused = this.kind === 'cluster' ? listenRefusal(this.child) : null;
    if (refused) this.exited.listen_refused = refused;
    if (this.kind === 'cluster') releasePath(this.appName);
    // The connections the daemon refused for it since its last report: no report carries them now.
    this.unreportedRefusals = this.worker ? (takeDaemonRefusals(this.worker)?.count ?? 0) : 0;
    clearTimeout(this.killTimer);
    clearTimeout(this.drainTimer);
    // Whatever the worker started and left behind goes with it: its group, and what left
    // the group, as found when it was asked to stop.
    if (this.pid) reapGroup(this.pid, this.killSignal, this.killTimeout);
    reapStrays(this.strays, this.killSignal, this.killTimeout);
    this.emit('exit', this.exited);
  }

  /**
   * Graceful retirement, the same for reload, stop, delete, scale down and the daemon's
   * own shutdown:
   *   1. a cluster worker drains (lib/worker/drain.cjs): it stops accepting,
   *      finishes in-flight requests, closes its connections cleanly, runs the app's
   *      onShutdown hooks and says "drained" — bounded by drain_timeout;
   *   2. cluster workers are then disconnected (harmless now), and kill_signal goes to
   *      the worker's process group;
   *   3. SIGKILL to the group if it has not exited kill_timeout after kill_signal.
   * Fork-mode children start at step 2, unless shutdown_with_message: they get the
   * 'shutdown' message and drain_timeout to exit by themselves first.
   */
  stop() {
    if (this.exited) return Promise.resolve(this.exited);
    if (!this.stopping) {
      this.#findStrays();
      this.stopping = new Promise((resolve) => this.once('exit', resolve));
      if (this.#canDrain()) this.#drainThenKill();
      else this.#kill();
    }
    return this.stopping;
  }

  // Fork-mode children with shutdown_with_message get the message and drain_timeout to exit by themselves.
  #canDrain() {
    return (this.canDrain || this.shutdownMessage) && this.child.connected;
  }

  #drainThenKill() {
    let done = false;
    const next = () => {
      if (done) return;
      done = true;
      clearTimeout(this.drainTimer);
      this.off('drained', next);
      this.#kill();
    };
    this.once('drained', next);
    this.drainTimer = setTimeout(next, this.drainTimeout);
    this.drainAsked = true;
    try {
      if (this.canDrain) tellAgent(this.child, TO_AGENT.SHUTDOWN, { drain_timeout: this.drainTimeout });
      if (this.shutdownMessage) this.child.send(PM2.SHUTDOWN);
    } catch {
      next(); // the channel closed under us: nothing left to drain through
    }
  }

  #kill() {
    if (this.exited) return;
    this.killTimer = setTimeout(() => this.pid && signalGroup(this.pid, 'SIGKILL'), this.killTimeout);
    const { worker } = this; // set for a cluster worker
    if (this.kind === 'cluster' && worker?.isConnected()) {
      worker.once('disconnect', () => this.signal(this.killSignal));
      worker.disconnect();
    } else {
      this.signal(this.killSignal);
    }
  }

  /** Lets a worker kept out of the rotation (SUPER_DEFER_TRAFFIC) take connections although it is not ready. */
  admit() {
    if (this.kind === 'cluster' && this.child.connected) tellAgent(this.child, TO_AGENT.ADMIT);
  }

  /** A worker was added beside this one: its agent closes each keep-alive connection once, so clients spread again. */
  rebalance() {
    if (this.kind === 'cluster' && this.child.connected) tellAgent(this.child, TO_AGENT.REBALANCE);
  }

  /**
   * Asks a cluster worker's agent to open its log paths again ('logs-reopened' answers).
   * @returns {boolean} false when it cannot be asked (fork mode: its agent notices by itself)
   */
  reopenLogs() {
    if (this.kind !== 'cluster') return false;
    tellAgent(this.child, TO_AGENT.REOPEN_LOGS);
    return true;
  }

  /** Whether the worker runs the agent with a channel to it (a Node worker: cluster, or fork with interpreter node). */
  get hasAgent() {
    return typeof this.child.send === 'function';
  }

  /**
   * Asks the agent for a diagnostic (TO_AGENT.PROFILE / HEAP with its fields); the answer
   * comes as a 'diagnostic' event. Throws as child.send does on a closed channel.
   */
  askAgent(name, fields) {
    tellAgent(this.child, name, fields);
  }

  /** Asks the agent for a metrics report now (the liveness ping, `ls`, a scrape); false when it has none or is gone. */
  requestReport() {
    return this.#tellMetricsAgent(TO_AGENT.REPORT);
  }

  /** Tells the agent to report once per interval (someone watches) or only when asked. */
  watchReports(on) {
    return this.#tellMetricsAgent(on ? TO_AGENT.WATCH : TO_AGENT.UNWATCH);
  }

  #tellMetricsAgent(name) {
    if (!this.reportInterval || this.exited || !this.child.connected) return false;
    tellAgent(this.child, name);
    return true;
  }

  /** Stops at once: SIGKILL to the process group (a failed replacement, a hung worker). */
  kill() {
    const exited = this.exited ? Promise.resolve(this.exited) : new Promise((resolve) => this.once('exit', resolve));
    if (!this.exited) this.#findStrays();
    this.signal('SIGKILL');
    return exited;
  }

  #findStrays() {
    if (this.pid && this.strays.length === 0) this.strays = strayDescendants(this.pid, this.pid);
  }

  /**
   * Sends a signal to the worker's whole process group; to the worker alone while it has no
   * group yet (a stop in the first milliseconds, before its exec prefix made one).
   */
  signal(sig) {
    if (this.pid && !this.exited && !signalGroup(this.pid, sig)) this.child.kill(sig);
  }
}
