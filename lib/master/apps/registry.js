// The registry of apps and the operations on them. The control handlers call these;
// nothing here parses wire input (lib/ipc/protocol.js did) or talks to sockets.
//
// It alone sets an app's busy mark, clientEnv and source (the App and Slot objects it
// holds make their own moves inside its operations: a pending config taken at a start, a
// scale's count, a reload's adopted config, a slot's restarts) and keeps its apps
// private: others run its commands, learn what happens from its events, and read it
// through `reader` (registry-reader.js). It gets its collaborators at
// construction and calls nothing that calls it back. Events:
//   'worker'       {app, slot, pid, state, prev, restarts, ...}   a worker state change
//   'reload'       {app, slot?, step, ...}                        reload progress
//   'app-added'    {app}                                          a new app is registered
//   'app-changed'  {app}                                          its config was replaced (watch on/off)
//   'app-removed'  {app}                                          deleted
import { EventEmitter } from 'node:events';
import { RegistryReader } from './registry-reader.js';
import { spreadWarning, checkSettings, applySettings } from '../settings/index.js';
import { unmappedWarning } from '../../config/check-affinity.js';
import { instancesProblem, workLimits } from '../../config/work-limits.js';
import { shellQuote } from '../../config/shell-split.js';
import { SuperError } from '../../errors.js';
import { appBusy, readyBound } from '../../error-messages.js';
import { changedKeys } from './config-diff.js';
import { resolveTargets } from './targets.js';
import { assignId, reclaimIds } from './app-ids.js';
import { stderrTail } from './tail-file.js';
import { StartGate, startConcurrency } from './start-gate.js';
import { stopDeadline } from './stop-deadline.js';
import { appsState } from './daemon-state.js';
import { rereadConfigs } from './reread-configs.js';

// Node's own IPC plumbing: a `super start` run from inside a worker must not pass these on,
// or a fork-mode child would take itself for a cluster worker. Filtered once, on receipt.
const NODE_IPC_VARS = new Set(['NODE_UNIQUE_ID', 'NODE_CHANNEL_FD', 'NODE_CHANNEL_SERIALIZATION_MODE']);
// stop, restart, delete and scale wait this long for the operation that holds the app (a
// cron_restart reload, a restart) before E_BUSY; a reload and a start still refuse at once.
const BUSY_WAIT_MS = 30_000;
const BUSY_POLL_MS = 50; // a guard only: every busy mark is #withBusy's, which leaves a promise to wait on
export const inheritable = (env) => Object.fromEntries(Object.entries(env).filter(([k]) => !NODE_IPC_VARS.has(k)));

/**
 * Where an app started from a file comes from, for its later reloads to re-read: the file,
 * its --env block, and (a PM2 file's relative paths) the directory `super start` ran in.
 * @param {string} file  @param {string|undefined} env  @param {string|undefined} cwd
 */
export const fileSource = (file, env, cwd) => (cwd === undefined ? { file, env } : { file, env, cwd });

export class AppRegistry extends EventEmitter {
  #apps = new Map(); // name -> App, in registration order

  #settings;

  /**
   * @param {object} o
   * @param {import('../settings/daemon-settings.js').DaemonSettings} o.settings  the daemon's settings
   *   (home, log, scheduling policy and CPU sets, control listener, metrics, load options)
   * @param {string} o.agentPath  the agent preloaded into workers
   * @param {(pids: number[]) => Promise<(number|null)[]>} [o.workerMemory]  the RSS (bytes, with the
   *   processes it started) of each worker, for the surge memory guard (the monitor's memoryOf)
   */
  constructor({ settings, agentPath, workerMemory }) {
    super();
    const { home, log } = settings;
    this.#settings = settings;
    this.reader = new RegistryReader(this, this.#apps, settings);
    this.ctx = {
      home,
      log,
      agentPath,
      affinity: settings.policy.affinity,
      // Every start of a worker (start, restart, scale) waits its turn here.
      startGate: new StartGate({ limit: startConcurrency(), workerMemory }),
      policy: () => settings.schedulingName,
      onReload: (info) => {
        log.info(info, `${info.app}${info.slot === undefined ? '' : `#${info.slot}`} reload ${info.step}`);
        this.emit('reload', info);
      },
      onSlotState: (app, slot, info) => {
        const event = { app: app.name, slot: slot.index, pid: info.pid ?? slot.proc?.pid ?? null, restarts: slot.restarts, ...info };
        log.info(event, `${app.name}#${slot.index} ${info.prev} -> ${info.state}`);
        this.emit('worker', event);
      },
      // The RSS (bytes, with the processes it started) of each of `pids`, for the surge memory guard.
      workerMemory,
      // What the worker's environment gets from the daemon's settings (metrics interval, overload, sticky).
      workerEnvExtra: (config) => settings.workerEnv(config),
    };
  }

  /**
   * `super start <file>`: add new apps and start them, start stopped ones, report running ones.
   * keepEnv (PM2's startOrReload / startOrRestart): a registered app keeps the caller's
   * environment it was started with, as in PM2 (only new apps take this caller's).
   */
  async startFromFile({ file, env, only, cwd, clientEnv: rawClientEnv, beforeStart, rollback = false, keepEnv = false }) {
    const { loadEcosystemOffThread } = await import('../../config/load-off-thread.js');
    const clientEnv = rawClientEnv && inheritable(rawClientEnv);
    // A JS/TS file runs with the caller's environment (lib/config/js-config.js).
    // cwd: where `super start` ran, where a PM2 file's relative paths start (kept for rereads).
    const eco = await loadEcosystemOffThread(file, this.#settings.loadOptions({ env, only, startDir: cwd, callerEnv: clientEnv }));
    const source = fileSource(file, env, cwd);
    const envOf = (config) => (keepEnv && this.#apps.has(config.name) ? undefined : clientEnv);
    const result = await this.startConfigs(eco.apps.map((config) => ({ config, clientEnv: envOf(config), source, autostart: config.autostart })), eco.daemon, file, beforeStart, { rollback });
    result.warnings.unshift(...eco.warnings);
    return result;
  }

  /**
   * Starts already-resolved app configs: from a file just loaded, or from a saved dump
   * (lib/master/saved/saved-state.js). Apps already running are reported, not touched.
   * @param {{config: import('../../config/index.js').AppConfig, clientEnv?: Record<string,string>, source?: {file?: string, env?: string, command?: object}, autostart?: boolean, id?: number, scaledFrom?: number|null}[]} entries
   *   autostart false (from a file): registered, not started
   *   source: the ecosystem file (and --env) a reload re-reads
   *   scaledFrom: (a saved dump) the file's instances when a command scaled the app (keptCount)
   * @param {{scheduling: string, scheduling_set: boolean, cpu_affinity: unknown, from_dump?: boolean}} daemon  a
   *   file's daemon settings, or what a dump saved
   * @param {string} [source]  where they come from, for messages
   * @param {() => Promise<void>} [beforeStart]  runs once the apps are registered, before
   *   any worker starts (`super run` starts following their logs there)
   * @param {{rollback?: boolean}} [o]  rollback (a user's `super start`): an app with a worker
   *   that fails before its first readiness is not left crash-looping: a new one is removed,
   *   one that was registered is stopped (result.rolled_back says which)
   */
  async startConfigs(entries, daemon, source = 'the saved dump', beforeStart, { rollback = false } = {}) {
    if (typeof daemon === 'string') daemon = { scheduling: daemon, scheduling_set: true, cpu_affinity: null }; // a policy name alone
    // Every check before any change (lib/master/settings/start-settings.js): a start refused
    // for any reason leaves the daemon and its apps as they were.
    const owners = this.#settings.owners;
    // The apps' machinery (slots, workers, reloads, log files) loads with the first start: a
    // daemon with no app never holds it.
    const { App } = await import('./app.js');
    const settings = await checkSettings(daemon, entries.map((e) => e.config), owners, { source, strict: !daemon.from_dump });
    const added = new Set(entries.map((e) => e.config.name).filter((name) => !this.#apps.has(name))).size;
    const { apps: maxApps } = workLimits();
    if (this.#apps.size + added > maxApps) {
      throw new SuperError('E_CONFIG', `${source}: ${added} new apps beside the ${this.#apps.size} the daemon has is more than the limit of ${maxApps} apps; delete some, or raise SUPER_MAX_APPS in the daemon's environment`);
    }
    this.#assertIdle(entries.map((e) => this.#apps.get(e.config.name)).filter(Boolean));
    /** @type {{started: string[], running: string[], changed: {name: string, keys: string[], source: string|undefined}[], warnings: string[], failed: object[]}} */
    const result = { started: [], running: [], changed: [], warnings: await applySettings(settings, owners), failed: [] };
    const toStart = [];
    const newApps = new Set();
    for (const { config, clientEnv, source: from, autostart, id, scaledFrom } of entries) {
      let app = this.#apps.get(config.name);
      // Taken by another operation while the settings were applied.
      if (app?.busy) throw appBusy(config.name, app.busy);
      if (app && app.running) {
        // An autoscaled or scaled app's count is its own: not a change of the file.
        const kept = app.keptFrom(config);
        const keys = changedKeys(app.effectiveConfig(), kept);
        result.running.push(config.name);
        if (keys.length) {
          app.pendingConfig = kept;
          // Started from another file: a reload re-reads that one, not this (only a restart takes this config).
          const other = from?.file && app.source?.file && app.source.file !== from.file ? app.source.file : undefined;
          result.changed.push({ name: config.name, keys, source: other });
        }
        continue;
      }
      if (app) {
        app.takeFileConfig(config);
        app.clientEnv = clientEnv ?? app.clientEnv;
      } else {
        app = this.#add(App, config, clientEnv, scaledFrom ?? null);
        assignId(this.#apps, app, id);
        newApps.add(app);
      }
      app.source = from ?? app.source;
      if (autostart === false) {
        result.warnings.push(`${app.name} is registered but not started (autostart: false); start it with \`super start ${shellQuote(app.name)}\``);
        continue;
      }
      toStart.push(app);
      const crowded = spreadWarning(app.config, this.#settings.policy.allowed);
      if (crowded) result.warnings.push(crowded);
      const unmapped = unmappedWarning(app.config);
      if (unmapped) result.warnings.push(unmapped);
    }
    await beforeStart?.();
    await Promise.all(toStart.map((app) => this.#withBusy(app, 'start', async () => {
      const outcomes = await app.start('start');
      result.started.push(app.name);
      await this.#collectOutcomes(app, outcomes, result);
      if (rollback && outcomes.some((o) => o.failed)) await this.#rollBack(app, newApps.has(app), result);
    })));
    reclaimIds(this.#apps, [...newApps], [...newApps].filter((app) => this.#apps.get(app.name) !== app));
    return result;
  }

  /** A start that failed: nothing of the app keeps running; a new app is forgotten again. */
  async #rollBack(app, isNew, result) {
    await app.stop();
    result.started.splice(result.started.indexOf(app.name), 1);
    (result.rolled_back ??= []).push({ app: app.name, kept: isNew ? 'removed' : 'stopped', err_log: app.config.disable_logs ? null : app.logPaths(0).err });
    if (isNew) this.#forget(app);
  }

  /** A stopped app leaves the registry: its log files closed, its name free again. */
  #forget(app) {
    app.closeLogs();
    this.#apps.delete(app.name);
    this.emit('app-removed', { app: app.name });
  }

  async #collectOutcomes(app, outcomes, result) {
    for (const o of outcomes) {
      if (o.failed) {
        result.failed.push({ app: app.name, slot: o.slot, reason: o.failed, ...(await stderrTail(app, o.slot, o.listen_refused)) });
      } else if (!o.ready) {
        result.warnings.push(`${app.name}#${o.slot} did not become ready ${readyBound(app.config)}; it is kept running. Apps that never listen need ready_on: spawn.`);
      }
    }
  }

  #add(App, config, clientEnv, scaledFrom) {
    const app = new App(config, this.ctx, clientEnv, scaledFrom);
    this.#apps.set(config.name, app);
    this.emit('app-added', { app: config.name });
    return app;
  }

  /** The apps a target (or a list of targets) names: lib/master/apps/targets.js. */
  targets(target) {
    return resolveTargets(this.#apps, target);
  }

  /** The one app a single-app op (describe, scale, watch) names: "all" is not an app. */
  app(name, op) {
    if (name === 'all') throw new SuperError('E_USAGE', `${op} works on one app, and "all" names every app; give an app name (\`super ls\` lists them)`);
    return this.targets(name)[0];
  }

  #operations = new Map(); // App -> a promise resolved when its running #withBusy operation ends

  async #withBusy(app, op, fn, { wait = false } = {}) {
    if (wait) await this.#idle(app);
    if (app.busy) throw appBusy(app.name, app.busy);
    app.busy = op;
    /** @type {(value?: unknown) => void} */
    let ended = () => {}; // replaced by the promise's own, at once
    this.#operations.set(app, new Promise((resolve) => (ended = resolve)));
    try {
      return await fn();
    } finally {
      this.#operations.delete(app);
      app.busy = null;
      ended();
    }
  }

  /** Resolves once `app` is not busy, or after BUSY_WAIT_MS (whoever runs next takes it at once). */
  async #idle(app) {
    const deadline = Date.now() + BUSY_WAIT_MS;
    while (app.busy && Date.now() < deadline) {
      let timer;
      const ends = this.#operations.get(app);
      const bound = new Promise((resolve) => (timer = setTimeout(resolve, ends ? deadline - Date.now() : BUSY_POLL_MS)));
      await Promise.race([ends ?? bound, bound]);
      clearTimeout(timer);
    }
  }

  async stop(target) {
    const apps = this.targets(target);
    await Promise.all(apps.map((app) => this.#withBusy(app, 'stop', () => app.stop(), { wait: true })));
    return { apps: apps.map((a) => a.name) };
  }

  /**
   * `super restart`: every worker stopped, then started again, with a config a `start` of
   * the app's file left pending. source: (startOrRestart) the file its reloads re-read from now on;
   * clientEnv: (`restart --update-env`) the caller's environment, under the app's own env, from now on.
   * @param {string|string[]} target
   * @param {{source?: {file?: string, env?: string, cwd?: string}, clientEnv?: Record<string, string>}} [o]
   */
  async restart(target, { source, clientEnv } = {}) {
    const apps = this.targets(target);
    const env = clientEnv && inheritable(clientEnv);
    for (const app of apps) {
      if (source) app.source = { ...app.source, ...source };
      if (env) app.clientEnv = env;
    }
    const result = { apps: apps.map((a) => a.name), warnings: [], failed: [] };
    await Promise.all(apps.map((app) => this.#withBusy(app, 'restart', async () => {
      await this.#collectOutcomes(app, await app.restart(), result);
    }, { wait: true })));
    return result;
  }

  /**
   * `super reload <app|all>`: rolling, zero-downtime reload, apps one after another.
   * Each app's ecosystem file is re-read first (the file is the source of truth): a
   * file that is now invalid, or no longer names the app, refuses the whole reload
   * before anything changes. keepConfig reloads with the running config.
   * overrides, for the replacements (never by a restart):
   *   clientEnv  `reload --update-env`: the caller's environment under the app's own env (the
   *              file's env wins, as in PM2); an app whose reload replaced no worker keeps its old one
   *   source     {file, env}: `start <file> --env <name>` on running apps: that env block applies now
   * A refused reload (a bad file, a busy app) leaves every app's environment and source as they were.
   * @param {string|string[]} target
   * @param {{keepConfig?: boolean, progress?: (p: object) => void,
   *   overrides?: {clientEnv?: Record<string,string>, source?: {file?: string, env?: string, cwd?: string}}|null}} [o]
   */
  async reload(target, { keepConfig = false, progress = () => {}, overrides = null } = {}) {
    const apps = this.targets(target);
    this.#assertIdle(apps);
    const restore = overrides ? this.#override(apps, overrides) : () => {};
    let data;
    try {
      data = await this.#reload(apps, keepConfig, progress);
    } catch (err) {
      restore(apps);
      throw err;
    }
    if (overrides?.clientEnv) {
      const untouched = (r) => (r.skipped ? !r.skipped.startsWith('stopped') : !r.ok && !r.replaced?.length);
      restore(apps.filter((app) => untouched(data.apps.find((r) => r.app === app.name))));
    }
    return data;
  }

  /** Sets the apps' clientEnv and/or source for a reload; returns what puts back those of the apps it is given. */
  /** @param {import('./app.js').App[]} apps  @param {{clientEnv?: Record<string,string>, source?: object}} overrides */
  #override(apps, { clientEnv, source }) {
    const before = new Map(apps.map((app) => [app, { clientEnv: app.clientEnv, source: app.source }]));
    const env = clientEnv && inheritable(clientEnv);
    for (const app of apps) {
      if (env) app.clientEnv = env;
      if (source) app.source = { ...app.source, ...source };
    }
    return (back) => {
      for (const app of back) Object.assign(app, before.get(app));
    };
  }

  async #reload(apps, keepConfig, progress) {
    const configs = keepConfig ? new Map() : await rereadConfigs(apps, this.#settings);
    const results = [];
    for (const app of apps) {
      // A stopped app stays stopped; an errored (crash-looping) one is reloaded: that is
      // how a fixed version gets in.
      if (app.status === 'stopped') {
        results.push({ app: app.name, ok: true, skipped: 'stopped; start it with `super start`' });
        continue;
      }
      const fileConfig = configs.get(app);
      const config = app.keptFrom(fileConfig ?? app.config);
      const changed = changedKeys(app.effectiveConfig(), config);
      progress({ app: app.name, step: 'begin', of: Math.min(config.instances, app.slots.length), changed, keep_config: keepConfig || undefined });
      this.#settings.log.info({ app: app.name, changed, keepConfig }, `${app.name}: reload begins`);
      let outcome;
      try {
        outcome = await this.#withBusy(app, 'reload', () => app.reload(config, progress));
      } catch (err) {
        // Another operation took this app while earlier apps reloaded: say so, keep the others' results.
        if (err.code !== 'E_BUSY') throw err;
        outcome = { app: app.name, ok: false, skipped: `not reloaded: ${err.message}` };
        progress({ ...outcome, step: 'done' });
        results.push(outcome);
        continue;
      }
      outcome.changed = changed;
      if (outcome.ok && fileConfig) app.reloadedFrom(fileConfig);
      if (outcome.failed) Object.assign(outcome.failed, await stderrTail(app, outcome.failed.slot ?? 0, outcome.failed.exit?.listen_refused));
      progress({ ...outcome, step: 'done' });
      results.push(outcome);
    }
    return { apps: results };
  }

  async delete(target) {
    const apps = this.targets(target);
    await Promise.all(apps.map((app) => this.#withBusy(app, 'delete', async () => {
      await app.stop();
      this.#forget(app);
    }, { wait: true })));
    return { apps: apps.map((a) => a.name) };
  }

  async scale(name, count) {
    const app = this.app(name, 'scale');
    const from = app.count;
    const to = /^[+-]/.test(count) ? from + Number(count) : Number(count);
    if (!Number.isInteger(to) || to < 1) {
      throw new SuperError('E_USAGE', `${name} cannot have ${to} instances; it needs at least 1 (use \`super stop ${shellQuote(name)}\` to stop it)`);
    }
    const tooMany = instancesProblem(to);
    if (tooMany) throw new SuperError('E_USAGE', `${name}: ${tooMany}`);
    const bounds = app.config.autoscale;
    if (bounds && (to < bounds.min || to > bounds.max)) {
      throw new SuperError('E_USAGE', `${name} autoscales between ${bounds.min} and ${bounds.max} workers (instances: { min: ${bounds.min}, max: ${bounds.max} }); scale it within them, or change the bounds in its file and reload`);
    }
    /** @type {{app: string, from: number, to: number, warnings: string[], failed: object[], holds: string}} */
    const result = { app: name, from, to, warnings: [], failed: [], holds: bounds ? `autoscale goes on from ${to}, between ${bounds.min} and ${bounds.max}` : 'the count holds across reloads and restarts until `instances` changes in its file' };
    const crowded = spreadWarning(app.config, this.#settings.policy.allowed, to);
    if (crowded) result.warnings.push(crowded);
    await this.#withBusy(app, 'scale', async () => {
      app.holdCount();
      if (!app.running) {
        app.resize(to);
        result.warnings.push(`${name} is stopped; it will start ${to} instances with \`super start\``);
        return;
      }
      await this.#collectOutcomes(app, await app.scale(to), result);
    }, { wait: true });
    return result;
  }

  /**
   * One autoscale step (lib/master/autoscale) of app `name` to `step.to` workers, one up or
   * one down: up through the normal start path (start gate, readiness, pinning) once the
   * host's memory holds one more worker, down by retiring the highest slot gracefully (a
   * drain). A new worker that fails before it is ready is retired again. Resolves with
   * {workers, refused?, failed?}, or null when the app is gone, stopped, held by another
   * operation, or the step is not one step within its bounds. Each outcome is the app's
   * last autoscale (ls, describe).
   * @param {string} name
   * @param {{to: number, from: number, direction: 'up'|'down', reason: string, figures: object}} step
   */
  async autoscale(name, step) {
    const app = this.#apps.get(name);
    const bounds = app?.config.autoscale;
    const from = app?.slots.length;
    if (!bounds || app.busy || !app.running || from !== step.from || Math.abs(step.to - from) !== 1 || step.to < bounds.min || step.to > bounds.max) return null;
    return this.#withBusy(app, 'autoscale', async () => {
      const outcome = { workers: from };
      if (step.to > from) outcome.refused = await app.roomForOneMore();
      if (!outcome.refused) {
        const failed = (await app.scale(step.to)).find((o) => o.failed);
        if (failed) {
          outcome.failed = `#${failed.slot} ${failed.failed}`;
          await app.scale(from);
        }
        outcome.workers = app.slots.length;
      }
      app.lastAutoscale = { at: Date.now(), direction: step.direction, from, to: step.to, reason: step.reason, figures: step.figures, ...outcome };
      return outcome;
    });
  }

  /**
   * Turns watch mode on or off for one app (`super watch`, `start --watch`: App.setWatch);
   * subscribers hear 'app-changed'.
   */
  setWatch(name, on) {
    const app = this.app(name, 'watch');
    const watch = app.setWatch(on);
    this.emit('app-changed', { app: app.name });
    return { app: name, watch };
  }

  /**
   * Replaces one worker ready-first (the monitor's max_memory_restart): resolves with the
   * replacement, or null when the app or slot is gone or busy.
   */
  async replaceSlot(name, index, reason) {
    const app = this.#apps.get(name);
    if (!app || app.busy) return null;
    return (await this.#withBusy(app, `replacing #${index}`, () => app.replaceSlot(index, reason))) ?? null;
  }

  /**
   * What each app `target` names would start with again: its pending config (a `start`
   * while it ran) or its config, the environment and the source it was started with.
   * @returns {{config: import('../../config/index.js').AppConfig, clientEnv: Record<string,string>, source: object|null}[]}
   */
  entries(target) {
    return this.targets(target).map((app) => ({ config: app.pendingConfig ?? app.config, clientEnv: app.clientEnv, source: app.source }));
  }

  /** `super start <app|all>` of registered apps: each starts with what entries() says; daemon-wide settings stay. */
  startApps(target) {
    const daemon = { scheduling: this.#settings.schedulingName, scheduling_set: false, cpu_affinity: null };
    return this.startConfigs(this.entries(target), daemon, 'super start', undefined, { rollback: true });
  }

  /**
   * The daemon's apps and daemon-wide settings in the dump's shape (`super save`, and the
   * state `super upgrade` hands to the successor daemon): daemon-state.js.
   */
  daemonState() {
    return { apps: appsState(this.#apps), ...this.#settings.state() };
  }

  /** Throws E_BUSY when any app runs an operation (`super upgrade` takes the state of idle apps only). */
  assertIdle() {
    this.#assertIdle(this.#apps.values());
  }

  #assertIdle(apps) {
    for (const app of apps) if (app.busy) throw appBusy(app.name, app.busy);
  }

  /** How long a graceful stop of every app may take (stop-deadline.js). */
  stopDeadline() {
    return stopDeadline(this.#apps.values());
  }

  /** Zeroes the restart counters of every slot of the apps `target` names (`super reset`). */
  resetCounters(target) {
    const apps = this.targets(target);
    for (const app of apps) for (const s of app.slots) s.restarts = 0;
    return { apps: apps.map((a) => a.name) };
  }

  /** Reopens every app's log files at their paths (`reload-logs`, SIGUSR2). */
  async reopenLogs() {
    const apps = [...this.#apps.values()];
    const files = (await Promise.all(apps.map((app) => app.logs.reopen()))).flat();
    return { apps: apps.map((a) => a.name), files };
  }

  /** Empties the log files of the apps `target` names (`flush`). */
  async flushLogs(target) {
    const apps = this.targets(target);
    const files = (await Promise.all(apps.map((app) => app.logs.flush(app.slots.map((s) => s.index))))).flat();
    return { apps: apps.map((a) => a.name), files };
  }

  /**
   * Graceful stop of everything, for `kill` and daemon signals; lameDuck false (an upgrade's
   * old daemon, whose successor serves already): no shutdown_delay before the drains.
   */
  async stopAll({ lameDuck = true } = {}) {
    await Promise.all([...this.#apps.values()].map((app) => app.stop({ lameDuck })));
    for (const app of this.#apps.values()) app.closeLogs();
  }
}
