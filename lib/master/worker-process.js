// One running worker process behind one small interface, whatever launched it
// (cluster worker or fork-mode child): STYLE.md guideline 4.
//
// Events: 'spawn', 'listening' (address), 'ready', 'exit' ({code, signal}), 'process-error'.
// stop(killSignal, killTimeout) -> Promise<{code, signal}>: graceful, then SIGKILL.
import { EventEmitter } from 'node:events';
import { forkClusterWorker } from './launch-cluster.js';
import { spawnForkWorker } from './launch-fork.js';
import { signalGroup, reapGroup } from './process-group.js';

/** PM2 apps signal readiness with process.send('ready'); superd/worker sends {cmd:'super:ready'}. */
const isReadyMessage = (m) => m === 'ready' || (m !== null && typeof m === 'object' && m.cmd === 'super:ready');

export class WorkerProcess extends EventEmitter {
  /** @param {{app: object, env: object, stdio: {out: number, err: number}, agentPath: string}} opts */
  constructor(opts) {
    super();
    this.kind = opts.app.exec_mode;
    this.exited = null;
    this.killSignal = opts.app.kill_signal;
    this.killTimeout = opts.app.kill_timeout;
    if (this.kind === 'cluster') {
      const w = forkClusterWorker(opts);
      this.worker = w;
      this.child = w.process;
      w.on('online', () => this.emit('spawn'));
      w.on('listening', (address) => this.emit('listening', address));
      w.on('message', (m) => this.#onMessage(m));
      w.on('disconnect', () => this.emit('disconnect'));
      w.on('exit', (code, signal) => this.#onExit(code, signal));
      // cluster re-emits the child's 'error' (spawn failure, EPIPE on a dead channel) on
      // the Worker: unhandled, it would throw in the daemon. The exit path handles the rest.
      w.on('error', (err) => this.emit('process-error', err));
    } else {
      const c = spawnForkWorker(opts);
      this.child = c;
      c.on('spawn', () => this.emit('spawn'));
      c.on('message', (m) => this.#onMessage(m));
      c.on('error', (err) => {
        this.emit('process-error', err);
        if (c.pid === undefined) this.#onExit(null, null, err);
      });
      c.on('exit', (code, signal) => this.#onExit(code, signal));
    }
    this.pid = this.child.pid ?? null;
  }

  #onMessage(m) {
    if (isReadyMessage(m)) this.emit('ready');
  }

  #onExit(code, signal, error) {
    if (this.exited) return;
    this.exited = { code, signal, error: error?.message };
    clearTimeout(this.killTimer);
    // Whatever the worker started and left behind goes with it.
    if (this.pid) reapGroup(this.pid, this.killSignal, this.killTimeout);
    this.emit('exit', this.exited);
  }

  /**
   * Graceful stop. Cluster: disconnect() first, so the worker's servers stop accepting and
   * finish in-flight requests, then kill_signal to its process group; fork mode:
   * kill_signal at once. SIGKILL to the group after kill_timeout in both cases.
   */
  stop() {
    if (this.exited) return Promise.resolve(this.exited);
    if (!this.stopping) {
      this.stopping = new Promise((resolve) => this.once('exit', resolve));
      this.killTimer = setTimeout(() => this.pid && signalGroup(this.pid, 'SIGKILL'), this.killTimeout);
      if (this.kind === 'cluster' && this.worker.isConnected()) {
        this.worker.once('disconnect', () => this.signal(this.killSignal));
        this.worker.disconnect();
      } else {
        this.signal(this.killSignal);
      }
    }
    return this.stopping;
  }

  /** Sends a signal to the worker's whole process group. */
  signal(sig) {
    if (this.pid && !this.exited) signalGroup(this.pid, sig);
  }
}
