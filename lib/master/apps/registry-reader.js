// The narrow, read-only face of the app registry for the monitor, the watcher and the
// status view: plain data and the registry's events, never the App or Slot objects
// themselves, so nothing outside apps/ depends on their fields or can change them.
import { appIds, appIdOf } from './app-ids.js';

export class RegistryReader {
  #registry;
  #apps;
  #settings;

  /**
   * @param {import('./registry.js').AppRegistry} registry
   * @param {Map<string, import('./app.js').App>} apps  the registry's own (private) apps
   * @param {import('../settings/daemon-settings.js').DaemonSettings} settings  the daemon's scheduling and CPUs, for snapshot()
   */
  constructor(registry, apps, settings) {
    this.#registry = registry;
    this.#apps = apps;
    this.#settings = settings;
  }

  /** Subscribes to a registry event ('worker', 'reload', 'app-added', 'app-changed', 'app-removed'). */
  on(event, listener) {
    this.#registry.on(event, listener);
    return this;
  }

  off(event, listener) {
    this.#registry.off(event, listener);
    return this;
  }

  /**
   * One app as others may see it, or null when there is none by that name.
   * id: never given to another app (app-ids.js), so it tells an app from a later one of the same name.
   * @returns {{id: number, name: string, config: import('../../config/index.js').AppConfig, status: string, busy: string|null, logs: {out: string, err: string}}|null}
   */
  app(name) {
    const app = this.#apps.get(name);
    if (!app) return null;
    // status and logs are read when asked: the monitor and the stall captures call app()
    // for every worker each interval and for every report, for its config, and an app's
    // status goes through all its slots (100 workers: 10^4 slot reads a second, for nothing).
    return {
      id: appIdOf(this.#apps, app),
      name,
      config: app.config,
      get status() {
        return app.status;
      },
      busy: app.busy,
      get logs() {
        return app.logPaths();
      },
    };
  }

  /** Where app `name`'s current workers began in its stderr file (App#stderrSince), or null. */
  stderrSince(name) {
    return this.#apps.get(name)?.stderrSince() ?? null;
  }

  /**
   * The config of app `name`, or null: for what runs for every worker each interval or for
   * every report (the monitor, the stall captures), without building app()'s view.
   */
  config(name) {
    return this.#apps.get(name)?.config ?? null;
  }

  /** Whether an operation (a reload, a restart, ...) holds app `name`; null when there is none. */
  busy(name) {
    const app = this.#apps.get(name);
    return app ? app.busy : null;
  }

  /** The state of slot `index` of app `name` when its worker process is `proc`, else null. */
  stateOf(name, index, proc) {
    const slot = this.#apps.get(name)?.slots[index];
    return slot && slot.proc === proc ? slot.state : null;
  }

  /** How many apps are registered. */
  count() {
    return this.#apps.size;
  }

  /**
   * The worker process in slot `index` of app `name` and the slot's state, or null.
   * @returns {{proc: object|null, state: string}|null}
   */
  worker(name, index) {
    const slot = this.#apps.get(name)?.slots[index];
    return slot ? { proc: slot.proc, state: slot.state } : null;
  }

  /**
   * The apps that autoscale, as the autoscaler reads them: their settings, whether an
   * operation holds them, their workers (ready: online and serving, not being replaced).
   */
  autoscaled() {
    const out = [];
    for (const app of this.#apps.values()) if (app.config.autoscale) out.push(autoscaleView(app));
    return out;
  }

  /** App `name` as autoscaled() gives it, or null when it does not autoscale. */
  autoscaledApp(name) {
    const app = this.#apps.get(name);
    return app?.config.autoscale ? autoscaleView(app) : null;
  }

  /** How many workers (slots) app `name` has; 0 when there is none. */
  workerCount(name) {
    return this.#apps.get(name)?.slots.length ?? 0;
  }

  /** The pids of every live worker. */
  pids() {
    const pids = [];
    for (const app of this.#apps.values()) for (const s of app.slots) if (s.pid) pids.push(s.pid);
    return pids;
  }

  /**
   * Plain data of every app and worker at `now`, what the status view
   * (lib/master/apps/status-view.js) builds `ls`, `describe`, the metrics broadcast and the
   * Prometheus text from.
   */
  snapshot(now = Date.now()) {
    const policy = this.#settings.policy;
    const ids = appIds(this.#apps);
    return {
      scheduling: policy.schedulingName,
      daemon_cpus: policy.daemonCpus,
      cpu_note: policy.cpuNote,
      apps: [...this.#apps.values()].map((app) => ({
        id: ids.get(app.name),
        name: app.name,
        status: app.status,
        config: app.effectiveConfig(),
        pending_config: app.pendingConfig,
        source: app.source,
        last_reload: app.lastReload,
        last_autoscale: app.lastAutoscale,
        logs: app.logPaths(),
        workers: app.slots.map((s) => s.snapshot(now)),
      })),
    };
  }
}

/** @param {import('./app.js').App} app */
function autoscaleView(app) {
  const workers = app.slots.map((s) => ({ pid: s.pid, state: s.state, ready: !s.notReady && !s.replacement }));
  return { name: app.name, autoscale: app.config.autoscale, busy: app.busy, running: app.running, lastReloadAt: app.lastReload?.at ?? 0, workers };
}
