// The daemon's settings, one owner for all of them: SUPER_HOME, the daemon's log, the
// scheduling policy and CPU sets, the TCP control listener, the metrics settings, the
// options every ecosystem file (or saved config) is loaded with, and the environment the
// workers get from them. Built first by the composition root (core/compose.js) and given
// to each part that needs them; the app registry keeps the apps and their operations.
import { DaemonPolicy } from './daemon-policy.js';

/**
 * @typedef {object} Metrics  the daemon-wide metrics settings (lib/master/health/metrics-settings.js)
 * @property {(m: object) => Promise<string[]>} configure
 * @property {number} interval
 * @property {object|null} settings
 */

export class DaemonSettings {
  /**
   * @param {object} o
   * @param {string} o.home  SUPER_HOME
   * @param {import('../../logs/json-logger.js').JsonLogger} o.log
   * @param {Metrics} o.metrics
   * @param {import('./remote-control.js').RemoteControl} o.control  the TCP control listener
   * @param {object} [o.loadDefaults]  loadEcosystem options for every file the daemon reads
   *   (`super run`: one log file per worker)
   */
  constructor({ home, log, metrics, control, loadDefaults = {} }) {
    this.home = home;
    this.log = log;
    this.policy = new DaemonPolicy({ log }); // scheduling policy and CPU sets
    this.metrics = metrics;
    this.control = control;
    this.loadDefaults = Object.freeze({ ...loadDefaults });
  }

  get schedulingName() {
    return this.policy.schedulingName;
  }

  /** The holders of each setting a start checks, then applies (start-settings.js). */
  get owners() {
    return { policy: this.policy, control: this.control, monitor: this.metrics, log: this.log };
  }

  /**
   * The options of every ecosystem file, text or saved config the daemon loads: `perFile`
   * (env, only, startDir, callerEnv, ...) with the daemon's CPUs as at boot (daemon.cpu_affinity
   * narrows the daemon, never the apps) and home; the daemon's loadDefaults win.
   * @param {object} [perFile]
   */
  loadOptions(perFile = {}) {
    return { ...perFile, allowedCpus: this.policy.allowed, home: this.home, ...this.loadDefaults };
  }

  /**
   * What a worker's environment gets from the daemon's settings: how often its agent reports
   * (the app's metrics_interval, else the daemon's), and the bounds past which it sheds
   * requests (lib/worker/overload.cjs).
   * @param {{metrics_interval?: number|null, overload?: object|null, sticky?: {by: string}|null, exec_mode: string}} config
   */
  workerEnv(config) {
    return {
      SUPER_METRICS_INTERVAL: String(config.metrics_interval ?? this.metrics.interval),
      ...(config.overload && { SUPER_OVERLOAD: JSON.stringify(config.overload) }),
      ...(config.sticky && config.exec_mode === 'cluster' && { SUPER_STICKY: config.sticky.by }), // lib/worker/sticky.cjs
    };
  }

  /** The daemon-wide settings in the dump's shape (`super save`, the state `super upgrade` hands over). */
  state() {
    return {
      scheduling: this.schedulingName,
      daemon_cpu_affinity: this.policy.pinnedTo,
      metrics: this.metrics.settings,
      control: this.control.settings,
    };
  }
}
