// The successor's side of `super upgrade`: a daemon started by the running one (with
// SUPERD_UPGRADE=1, an IPC channel and the listening sockets) takes its state, starts every
// app on the inherited sockets, says when they are ready, and takes over the control socket
// and the pid file when told to commit. Its control server listens on a temporary path
// until then, renamed over super.sock at commit: `super ls` always finds a daemon.
//
// If the old daemon dies before the commit (SIGKILL mid-handover: its workers die with it),
// the successor commits on its own once its apps are ready, so one daemon serves. If its
// apps fail, it stops them and exits 1: the old daemon keeps serving.
import fs from 'node:fs';
import { SuperError } from '../../errors.js';
import { WORKER_STATES as S } from '../states.js';
import { replacePidFile } from '../saved/index.js';
import { message, isStep } from './messages.js';

const STATE_TIMEOUT = 10000;

/** Where a successor's control server listens until it commits. */
export const successorControlPath = (finalPath, pid) => `${finalPath}.${pid}`;

export class Handover {
  /** A handover when this process was started by `super upgrade`, else null. */
  static fromEnv(env = process.env) {
    if (env.SUPERD_UPGRADE !== '1' || !process.send) return null;
    delete env.SUPERD_UPGRADE;
    return new Handover();
  }

  constructor() {
    // A parent killed while this process loaded its modules is gone already: no event then.
    this.parentGone = process.connected ? new Promise((resolve) => process.once('disconnect', resolve)) : Promise.resolve();
  }

  /** Where the control server listens until the commit. */
  controlPath(finalPath) {
    return successorControlPath(finalPath, process.pid);
  }

  /** Progress for the CLI of the old daemon (nothing once it is gone). */
  say(text) {
    if (process.connected) process.send?.(message('progress', { text }));
  }

  /**
   * Runs the handover. Resolves once this daemon is the one of SUPER_HOME; throws when its
   * apps could not take over (the caller stops them and exits 1).
   * @param {{registry: import('../apps/registry.js').AppRegistry, settings: import('../settings/daemon-settings.js').DaemonSettings,
   *   log: import('../../logs/json-logger.js').JsonLogger, socketPath: string, pidPath: string}} o
   */
  async run({ registry, settings, log, socketPath, pidPath }) {
    // Each new worker's state changes, as a reload shows them.
    const onWorker = (e) => this.say(`${e.app}#${e.slot} ${e.state}${e.pid ? ` (pid ${e.pid})` : ''}`);
    registry.on('worker', onWorker);
    try {
      const state = await this.#receiveState();
      // /readyz and HAProxy's agent answer for the host: until the commit the old daemon's
      // workers serve, and this daemon's, still starting, would say it is not ready.
      const { listen = null, agent_check: agentCheck = null, ...metrics } = state.daemon.metrics ?? {};
      await startState(registry, settings.loadOptions(), { ...state, daemon: { ...state.daemon, metrics: state.daemon.metrics && metrics } }, this);
      registry.off('worker', onWorker);
      if (process.connected) process.send?.(message('ready'));
      await Promise.race([this.#nextStep('commit'), this.parentGone]);
      if (!process.connected) log.warn('the daemon being replaced went away before the commit; taking over');
      fs.renameSync(this.controlPath(socketPath), socketPath);
      replacePidFile(pidPath);
      if (listen || agentCheck) {
        for (const w of await settings.metrics.configure({ ...settings.metrics.settings, listen, agent_check: agentCheck })) log.warn(w);
      }
      if (process.connected) {
        process.send?.(message('committed'));
        process.disconnect();
      }
    } catch (err) {
      registry.off('worker', onWorker);
      if (process.connected) process.send?.(message('failed', { message: err.message, failed: err.details?.failed }));
      throw err;
    }
  }

  #receiveState() {
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`no state from the daemon being replaced within ${STATE_TIMEOUT} ms`)), STATE_TIMEOUT);
      this.#nextStep('state').then((m) => {
        clearTimeout(timer);
        resolve(m.state);
      });
      this.parentGone.then(() => {
        clearTimeout(timer);
        reject(new Error('the daemon being replaced went away before it sent its state'));
      });
    });
  }

  #nextStep(step) {
    return new Promise((resolve) => {
      const on = (m) => {
        if (!isStep(m, step)) return;
        process.off('message', on);
        resolve(m);
      };
      process.on('message', on);
    });
  }
}

/**
 * Starts the handed state's apps (stopped ones registered, not started) with the same
 * readiness as a start, then holds them for the longest `probation`: a worker that exits
 * meanwhile fails the upgrade, as it fails a reload.
 */
async function startState(registry, options, state, handover) {
  const { loadSavedAppOffThread } = await import('../../config/index.js');
  const entries = [];
  for (const a of state.apps) {
    entries.push({
      config: await loadSavedAppOffThread(a.config, 'the state of the daemon being replaced', options),
      clientEnv: a.clientEnv,
      source: a.source,
      id: a.id,
      autostart: !a.stopped,
    });
  }
  handover.say(`successor (pid ${process.pid}) starting ${entries.filter((e) => e.autostart).length} app(s)`);
  const result = await registry.startConfigs(entries, { ...state.daemon, from_dump: false }, 'super upgrade');
  const notReady = result.warnings.filter((w) => /did not become ready/.test(w));
  if (result.failed.length || notReady.length) {
    const f = result.failed[0];
    const why = f ? `${f.app}#${f.slot} ${f.reason} before it became ready` : notReady[0];
    throw new SuperError('E_UPGRADE_FAILED', `the new daemon's workers did not all become ready: ${why}`, { failed: result.failed });
  }
  const started = entries.filter((e) => e.autostart).map((e) => e.config);
  const probation = Math.max(0, ...started.map((c) => c.probation ?? 0));
  if (probation) {
    handover.say(`workers ready; probation ${probation} ms`);
    await new Promise((r) => setTimeout(r, probation));
  }
  for (const c of started) {
    for (let i = 0; i < c.instances; i++) {
      const w = registry.reader.worker(c.name, i);
      if (w?.state !== S.ONLINE) throw new SuperError('E_UPGRADE_FAILED', `${c.name}#${i} is ${w?.state ?? 'gone'} after probation on the new daemon`);
    }
  }
}
