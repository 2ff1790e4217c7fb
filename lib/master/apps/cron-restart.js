// cron_restart: each app with a schedule gets a croner job while it runs, which does a
// rolling, zero-downtime reload through the function it was given (with the running
// config; PM2 restarts hard instead). It reads the apps through the registry's read-only
// face and syncs on its events (every worker state change, delete).
import { createRequire } from 'node:module';

// croner is loaded by the first schedule armed: a daemon without cron_restart never holds it.
const require = createRequire(import.meta.url);

export class CronRestarts {
  /**
   * @param {object} o
   * @param {import('./registry-reader.js').RegistryReader} o.reader
   * @param {(app: string) => Promise<{apps: object[]}>} o.reload  the rolling reload with the running config
   * @param {import('../../logs/json-logger.js').JsonLogger} o.log
   */
  constructor({ reader, reload, log }) {
    this.reader = reader;
    this.reloadApp = reload;
    this.log = log;
    this.jobs = new Map(); // app name -> { pattern, job }
    this.onAppEvent = (e) => this.sync(e.app);
    for (const event of ['worker', 'app-removed']) reader.on(event, this.onAppEvent);
  }

  /** Arms, re-arms or stops the schedule of one app, as its config and status say. */
  sync(name) {
    const app = this.reader.app(name);
    const pattern = app && app.status !== 'stopped' ? app.config.cron_restart : null;
    const current = this.jobs.get(name);
    if (current?.pattern === pattern) return;
    current?.job.stop();
    this.jobs.delete(name);
    if (!pattern) return;
    // protect: a run still reloading when the next is due is skipped, not stacked.
    const { Cron } = require('croner');
    const job = new Cron(pattern, { protect: true }, () => this.#run(name));
    this.jobs.set(name, { pattern, job });
  }

  async #run(name) {
    this.log.info({ app: name }, `${name}: cron_restart reload`);
    try {
      const { apps } = await this.reloadApp(name);
      const outcome = apps[0];
      if (!outcome?.ok) this.log.warn({ app: name, outcome }, `${name}: cron_restart reload did not complete`);
    } catch (err) {
      this.log.warn({ app: name, err: err.message }, `${name}: cron_restart reload skipped`);
    }
    this.sync(name); // the app may have been deleted or stopped meanwhile
  }

  /**
   * `{ pattern, next }` (next run, ISO; null while the app is stopped) for describe, with
   * `never: true` when it is armed and no date matches (`0 0 31 2 *`), or null without one.
   */
  status(app) {
    const entry = this.jobs.get(app.name);
    if (!entry) return app.config.cron_restart ? { pattern: app.config.cron_restart, next: null } : null;
    const next = entry.job.nextRun()?.toISOString() ?? null;
    return next ? { pattern: entry.pattern, next } : { pattern: entry.pattern, next, never: true };
  }

  close() {
    for (const event of ['worker', 'app-removed']) this.reader.off(event, this.onAppEvent);
    for (const { job } of this.jobs.values()) job.stop();
    this.jobs.clear();
  }
}
