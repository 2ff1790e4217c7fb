// Watch mode: an app with `watch` gets a rolling reload when its files change, once per
// burst (watch_delay of quiet), with the changed files named in daemon.log.
//
//   file changes --(watch thread: chokidar + debounce)--> one burst message
//     -> app not running: ignored
//     -> a reload of this app is running: one more reload queued after it (bursts merge)
//     -> reloadForWatch(): the rolling, zero-downtime reload of the app
//
// An app is watched while it exists, is not stopped, and has watch paths; sync(name) is
// called on every worker event of the app, so start/stop/delete need no hooks here.
import path from 'node:path';
import { Worker } from 'node:worker_threads';
import { WORKER_STATES as S } from '../core/states.js';

/**
 * The one place watch mode reloads an app: the rolling, zero-downtime reload of
 * `super reload`, with the running config (a code change is not a config change).
 * On failure the old workers keep serving (the reload rolls back).
 */
export async function reloadForWatch(supervisor, name) {
  const { apps } = await supervisor.reload(name, { keepConfig: true });
  const outcome = apps[0];
  return { ok: outcome?.ok ?? false, failed: outcome?.failed ? [outcome.failed] : [], skipped: outcome?.skipped };
}

export class WatchManager {
  /**
   * @param {object} o
   * @param {import('../core/registry.js').Supervisor} o.supervisor
   * @param {import('pino').Logger} o.log
   * @param {(data: object) => void} o.emit  'watch' events for subscribers: {app, state: 'ready'|'reload'|'reloaded'|'error', ...}
   */
  constructor({ supervisor, log, emit }) {
    this.supervisor = supervisor;
    this.log = log;
    this.emit = emit;
    this.thread = null;
    this.watching = new Map(); // app -> key of what is watched (paths + ignore + delay)
    this.reloading = new Map(); // app -> {again: boolean}
    this.ready = new Map(); // app -> paths watched, once its initial scan is done
  }

  /** For `describe`: {paths, ready, count} or null when the app is not watched. */
  status(name) {
    if (!this.watching.has(name)) return null;
    const paths = this.supervisor.apps.get(name)?.config.watch ?? [];
    return { paths, ready: this.ready.has(name), count: this.ready.get(name) ?? null };
  }

  #ensureThread() {
    if (this.thread) return this.thread;
    this.thread = new Worker(new URL('./watch-thread.js', import.meta.url));
    this.thread.unref();
    this.thread.on('message', (m) => this.#onMessage(m));
    this.thread.on('error', (err) => this.log.error({ err }, 'watch thread failed; watching stops'));
    this.thread.on('exit', () => {
      this.thread = null;
      this.watching.clear();
    });
    return this.thread;
  }

  /** Starts, updates or stops watching `name` to match the app's state and config. */
  sync(name) {
    const app = this.supervisor.apps.get(name);
    // A restart passes through "stopped" while busy: keep the watch (no rescan).
    const passing = app?.busy && app.busy !== 'stop' && app.busy !== 'delete';
    const wanted = app && app.config.watch.length > 0 && (app.status !== S.STOPPED || passing);
    const current = this.watching.get(name);
    if (!wanted) {
      if (current !== undefined) {
        this.watching.delete(name);
        this.ready.delete(name);
        this.thread?.postMessage({ op: 'unwatch', app: name });
        this.log.info({ app: name }, `watch: ${name} no longer watched`);
      }
      return;
    }
    const c = app.config;
    const logs = app.logPaths();
    const spec = { paths: c.watch, ignore: c.ignore_watch, files: [logs.out, logs.err, this.supervisor.home], delay: c.watch_delay };
    const key = JSON.stringify(spec);
    if (current === key) return;
    this.watching.set(name, key);
    this.ready.delete(name);
    this.#ensureThread().postMessage({ op: 'watch', app: name, ...spec });
    this.log.info({ app: name, paths: spec.paths, ignore: spec.ignore }, `watch: watching ${spec.paths.join(', ')} for ${name}`);
  }

  /** `super watch <app> on|off` and `super start --watch`: changes the app's watch paths. */
  set(name, on) {
    const app = this.supervisor.app(name, 'watch');
    const c = app.config;
    if (on && c.watch.length === 0) app.config = { ...c, watch: app.watchOff ?? [c.cwd] };
    if (!on && c.watch.length > 0) {
      app.watchOff = c.watch;
      app.config = { ...c, watch: [] };
    }
    this.sync(name);
    return { app: name, watch: app.config.watch };
  }

  #onMessage(m) {
    if (m.error) {
      this.log.error({ app: m.app, err: m.error }, `watch: ${m.app}: ${m.error}`);
      this.emit({ app: m.app, state: 'error', error: m.error });
    } else if (m.ready) {
      if (!this.watching.has(m.app)) return;
      this.ready.set(m.app, m.count);
      this.log.info({ app: m.app, files: m.count }, `watch: ${m.app} ready (${m.count} paths watched)`);
      this.emit({ app: m.app, state: 'ready', count: m.count });
    } else if (m.changed) {
      this.#onBurst(m.app, m.changed, m.count);
    }
  }

  async #onBurst(name, files, count) {
    const app = this.supervisor.apps.get(name);
    if (!app || !this.watching.has(name) || app.status === S.STOPPED) return;
    const first = files[0] ? path.relative(app.config.cwd, files[0]) || files[0] : '?';
    const more = count > 1 ? ` and ${count - 1} more change(s)` : '';
    this.log.info({ app: name, files, count }, `watch: ${first} changed${more}; reloading ${name}`);
    const running = this.reloading.get(name);
    if (running) {
      running.again = true; // a reload is under way: one more after it, for this burst
      return;
    }
    const state = { again: false };
    this.reloading.set(name, state);
    try {
      do {
        state.again = false;
        this.emit({ app: name, state: 'reload', files, count });
        const result = await this.#reload(name);
        this.emit({ app: name, state: 'reloaded', failed: result?.failed ?? [] });
      } while (state.again && this.watching.has(name));
    } finally {
      this.reloading.delete(name);
    }
  }

  async #reload(name) {
    // Another operation (a CLI restart, scale, reload) may hold the app: wait for it.
    for (let wait = 100; ; wait = Math.min(wait * 2, 2000)) {
      try {
        const result = await reloadForWatch(this.supervisor, name);
        if (result.failed.length) this.log.warn({ app: name, failed: result.failed }, `watch: reload of ${name} failed; the previous workers keep serving`);
        return result;
      } catch (err) {
        if (err.code !== 'E_BUSY' || !this.watching.has(name)) {
          this.log.error({ app: name, err: err.message }, `watch: reload of ${name} failed`);
          return null;
        }
        await new Promise((r) => setTimeout(r, wait));
      }
    }
  }

  async close() {
    await this.thread?.terminate();
  }
}
