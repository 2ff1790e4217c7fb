// cron_restart: each app with a schedule gets a croner job while it runs, which does a
// rolling, zero-downtime reload through the registry (with the running config; PM2
// restarts hard instead). The daemon calls sync(name) on every worker state change.
import { Cron } from 'croner';

export class CronRestarts {
  /**
   * @param {{ supervisor: import('./registry.js').Supervisor, log: import('pino').Logger }} o
   */
  constructor({ supervisor, log }) {
    this.supervisor = supervisor;
    this.log = log;
    this.jobs = new Map(); // app name -> { pattern, job }
  }

  /** Arms, re-arms or stops the schedule of one app, as its config and status say. */
  sync(name) {
    const app = this.supervisor.apps.get(name);
    const pattern = app && app.status !== 'stopped' ? app.config.cron_restart : null;
    const current = this.jobs.get(name);
    if (current?.pattern === pattern) return;
    current?.job.stop();
    this.jobs.delete(name);
    if (!pattern) return;
    // protect: a run still reloading when the next is due is skipped, not stacked.
    const job = new Cron(pattern, { protect: true }, () => this.#run(name));
    this.jobs.set(name, { pattern, job });
  }

  async #run(name) {
    this.log.info({ app: name }, `${name}: cron_restart reload`);
    try {
      const { apps } = await this.supervisor.reload(name, { keepConfig: true });
      const outcome = apps[0];
      if (!outcome?.ok) this.log.warn({ app: name, outcome }, `${name}: cron_restart reload did not complete`);
    } catch (err) {
      this.log.warn({ app: name, err: err.message }, `${name}: cron_restart reload skipped`);
    }
    this.sync(name); // the app may have been deleted or stopped meanwhile
  }

  /** `{ pattern, next }` (next run, ISO) for describe, or null when the app has none armed. */
  status(app) {
    const entry = this.jobs.get(app.name);
    if (!entry) return app.config.cron_restart ? { pattern: app.config.cron_restart, next: null } : null;
    return { pattern: entry.pattern, next: entry.job.nextRun()?.toISOString() ?? null };
  }

  close() {
    for (const { job } of this.jobs.values()) job.stop();
    this.jobs.clear();
  }
}
