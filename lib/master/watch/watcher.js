// Watch mode: an app with `watch` gets a rolling reload when its files change, once per
// burst (watch_delay of quiet), with the changed files named in daemon.log.
//
//   file changes --(watch thread: chokidar + debounce)--> one burst message
//     -> app not running: ignored
//     -> a reload of this app is running: one more reload queued after it (bursts merge)
//     -> reload(): the rolling, zero-downtime reload of the app (the function it was given)
//
// An app is watched while it exists, is not stopped, and has watch paths. The watcher
// reads the apps through the registry's read-only face (apps/registry-reader.js) and
// syncs on its events (every worker state change, watch on/off, delete), so start, stop
// and delete need no hooks here; it reloads only through the function it was given.
import path from 'node:path';
import { Worker } from 'node:worker_threads';
import { WORKER_STATES as S } from '../states.js';

const THREAD_HEAP_MB = 256;
const DEFAULT_MAX_PATHS = 20_000;

/** Paths one app may watch: SUPER_WATCH_MAX_PATHS in the daemon's environment, else 20000. */
function watchMaxPaths(env = process.env) {
  const n = Number(env.SUPER_WATCH_MAX_PATHS);
  return Number.isInteger(n) && n > 0 ? n : DEFAULT_MAX_PATHS;
}

export class WatchManager {
  /**
   * @param {object} o
   * @param {string} o.home  SUPER_HOME: never watched (its logs and dump change on their own)
   * @param {import('../apps/registry-reader.js').RegistryReader} o.reader
   * @param {(app: string) => Promise<{apps: object[]}>} o.reload  the rolling, zero-downtime
   *   reload of `super reload` with the running config (a code change is not a config
   *   change); on failure the old workers keep serving
   * @param {import('../../logs/json-logger.js').JsonLogger} o.log
   * @param {(data: object) => void} o.emit  'watch' events for subscribers: {app, state: 'ready'|'reload'|'reloaded'|'error', ...};
   *   'ready' names the thread that scanned (its threadId; the daemon's loop is 0)
   */
  constructor({ home, reader, reload, log, emit }) {
    this.home = home;
    this.reader = reader;
    this.reloadApp = reload;
    this.log = log;
    this.emit = emit;
    this.thread = null;
    this.watching = new Map(); // app -> key of what is watched (paths + ignore + delay)
    this.reloading = new Map(); // app -> {again: boolean}
    this.ready = new Map(); // app -> paths watched, once its initial scan is done
    this.onAppEvent = (e) => this.sync(e.app);
    for (const event of ['worker', 'app-changed', 'app-removed']) reader.on(event, this.onAppEvent);
  }

  /** For `describe`: {paths, ready, count} or null when the app is not watched. */
  status(name) {
    if (!this.watching.has(name)) return null;
    const paths = this.reader.app(name)?.config.watch ?? [];
    return { paths, ready: this.ready.has(name), count: this.ready.get(name) ?? null };
  }

  #ensureThread() {
    if (this.thread) return this.thread;
    this.thread = new Worker(new URL('./watch-thread.js', import.meta.url), {
      workerData: { maxPaths: watchMaxPaths() },
      resourceLimits: { maxOldGenerationSizeMb: THREAD_HEAP_MB }, // a tree too big ends the thread, not the daemon
    });
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
    const app = this.reader.app(name);
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
    const spec = { paths: c.watch, ignore: c.ignore_watch, files: [app.logs.out, app.logs.err, this.home], delay: c.watch_delay, options: c.watch_options ?? {} };
    const key = JSON.stringify(spec);
    if (current === key) return;
    this.watching.set(name, key);
    this.ready.delete(name);
    this.#ensureThread().postMessage({ op: 'watch', app: name, ...spec });
    this.log.info({ app: name, paths: spec.paths, ignore: spec.ignore }, `watch: watching ${spec.paths.join(', ')} for ${name}`);
  }

  #onMessage(m) {
    if (m.error) {
      this.log.error({ app: m.app, err: m.error }, `watch: ${m.app}: ${m.error}`);
      this.emit({ app: m.app, state: 'error', error: m.error });
    } else if (m.ready) {
      if (!this.watching.has(m.app)) return;
      this.ready.set(m.app, m.count);
      this.log.info({ app: m.app, files: m.count }, `watch: ${m.app} ready (${m.count} paths watched)`);
      this.emit({ app: m.app, state: 'ready', count: m.count, thread: m.thread });
    } else if (m.changed) {
      this.#onBurst(m.app, m.changed, m.count);
    }
  }

  async #onBurst(name, files, count) {
    const app = this.reader.app(name);
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
        const { apps } = await this.reloadApp(name);
        const result = { failed: apps[0]?.failed ? [apps[0].failed] : [] };
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
    for (const event of ['worker', 'app-changed', 'app-removed']) this.reader.off(event, this.onAppEvent);
    await this.thread?.terminate();
  }
}
