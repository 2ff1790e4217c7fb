// `super upgrade [--daemon-path DIR] [--config FILE]` in the running daemon: one upgrade at a
// time (E_BUSY), and no other change to the apps while one runs (the successor runs the
// state taken at its start). Daemon-wide settings (scheduling, control.*, daemon.cpu_affinity,
// metrics, logs) come from --config FILE when given, key by key: a key the file does not
// set keeps its value.
import { SuperError } from '../../errors.js';
import { daemonPackage } from './daemon-package.js';
import { startSuccessor, BOOT_MARGIN } from './successor.js';
import { stopAccepting } from './cluster-listeners.js';

// Ops that change nothing; everything else waits for the upgrade to end.
const READ_ONLY = new Set(['ping', 'version', 'ls', 'describe', 'env', 'pid', 'logs', 'subscribe', 'unsubscribe', 'stats', 'save']);

export class Upgrade {
  /**
   * @param {object} o
   * @param {import('../apps/registry.js').AppRegistry} o.registry
   * @param {import('../settings/daemon-settings.js').DaemonSettings} o.settings
   * @param {import('../../logs/json-logger.js').JsonLogger} o.log
   * @param {(successorPid: number) => void} o.retire  retires this daemon once the successor owns
   *   SUPER_HOME: its workers are stopped gracefully and it exits, leaving the socket and pid file
   * @param {string|null} [o.refuse]  why this daemon cannot be replaced (`super run`: its process is
   *   the container's, its apps' output goes to its stdout)
   */
  constructor({ registry, settings, log, retire, refuse = null }) {
    this.registry = registry;
    this.settings = settings;
    this.log = log;
    this.retire = retire;
    this.refuse = refuse;
    this.running = false;
  }

  /** Wraps the control handlers: while an upgrade runs, only read-only ops are served. */
  guard(handlers) {
    const guarded = { ...handlers, upgrade: (args, conn, progress) => this.run(args, progress) };
    for (const [op, fn] of Object.entries(guarded)) {
      if (READ_ONLY.has(op) || op === 'upgrade') continue;
      guarded[op] = (...a) => {
        if (this.running) throw new SuperError('E_BUSY', `the daemon is being upgraded; try \`super ${op}\` again when \`super upgrade\` is done`);
        return fn(...a);
      };
    }
    return guarded;
  }

  /** @param {{daemonPath?: string, config?: string}} args  absolute paths */
  async run({ daemonPath, config }, progress) {
    if (this.refuse) throw new SuperError('E_USAGE', `this daemon cannot be upgraded in place: ${this.refuse}`);
    if (this.running) throw new SuperError('E_BUSY', 'an upgrade is already running; wait for it to finish');
    this.registry.assertIdle();
    this.running = true;
    try {
      const pkg = daemonPackage(daemonPath);
      const { apps, ...current } = this.registry.daemonState();
      const daemon = await this.#daemonSettings(current, config);
      const started = apps.filter((a) => !a.stopped).map((a) => a.config);
      const deadline = BOOT_MARGIN + Math.max(0, ...started.map((c) => c.listen_timeout + c.probation));
      this.log.info({ entry: pkg.entry, version: pkg.version, apps: apps.length, config }, 'upgrade: starting a successor daemon');
      const say = (text) => progress({ text });
      const { pid } = await startSuccessor({ home: this.settings.home, pkg, state: { apps, daemon }, deadline, progress: say, log: this.log });
      // The successor accepts on the same sockets: new connections go to it alone from now.
      const closed = await stopAccepting();
      this.log.info({ successor: pid, listeners_closed: closed }, 'upgrade: the successor owns the control socket; retiring this daemon');
      setImmediate(() => this.retire(pid));
      return { from: process.pid, to: pid, version: pkg.version, apps: apps.map((a) => a.config.name) };
    } catch (err) {
      this.running = false;
      throw err;
    }
  }

  /** The daemon-wide settings the successor starts with. */
  async #daemonSettings(current, file) {
    const daemon = { scheduling: current.scheduling, scheduling_set: true, cpu_affinity: current.daemon_cpu_affinity, metrics: current.metrics ?? undefined, control: current.control };
    if (!file) return daemon;
    const { loadEcosystem } = await import('../../config/index.js');
    const eco = (await loadEcosystem(file, this.settings.loadOptions())).daemon;
    return {
      ...daemon,
      ...(eco.scheduling_set ? { scheduling: eco.scheduling } : {}),
      ...(eco.control.listen ? { control: eco.control } : {}),
      ...(eco.cpu_affinity !== null && eco.cpu_affinity !== undefined ? { cpu_affinity: eco.cpu_affinity } : {}),
      ...(eco.metrics.listen ? { metrics: eco.metrics } : {}),
      logs: eco.logs,
    };
  }
}
