// The daemon's health monitor: follows every worker process, keeps what its agent reports
// and what /proc says it costs, samples once per `metrics.interval`, acts on
// max_memory_restart / unresponsive_timeout (health-rules.js), and pushes a snapshot to
// control connections subscribed to the "metrics" topic.
//
//   agent (worker) --IPC {cmd:'super:metrics'}--> WorkerProcess 'metrics' --> WorkerRecord
//   timer (interval) --> ProcessSampler (/proc, chunked) --> WorkerRecord.onSample
//                    --> decideHealthAction --> app.replaceSlot | SIGKILL group
//                    --> broadcast('metrics', snapshot)   only when someone listens
import { workerProcesses } from '../process/index.js';
import { ProcessSampler } from './process-sampler.js';
import { WorkerRecord } from './metrics-store.js';
import { decideHealthAction } from './health-rules.js';
import { WORKER_STATES as S } from '../core/states.js';

export class Monitor {
  /**
   * @param {object} o
   * @param {import('../core/registry.js').Supervisor} o.supervisor
   * @param {import('pino').Logger} o.log
   * @param {(topic: string, data: object) => void} o.broadcast
   * @param {(topic: string) => boolean} o.subscribed  true when a connection listens to topic
   */
  constructor({ supervisor, log, broadcast, subscribed }) {
    this.supervisor = supervisor;
    this.log = log;
    this.broadcast = broadcast;
    this.subscribed = subscribed;
    this.records = new Map(); // pid -> WorkerRecord
    this.sampler = new ProcessSampler();
    this.interval = 1000;
    this.timer = null;
    this.sampling = null;
    this.onNew = (proc) => this.#follow(proc);
    workerProcesses.on('new', this.onNew);
  }

  #follow(proc) {
    if (!proc.pid) return;
    const rec = new WorkerRecord(proc);
    this.records.set(proc.pid, rec);
    proc.on('metrics', (data) => rec.onReport(data));
    proc.once('exit', () => {
      this.records.delete(proc.pid);
      this.sampler.forget(proc.pid);
    });
  }

  /** Sampling period (daemon-wide `metrics.interval`); restarts the timer when it changes. */
  setInterval(ms) {
    if (this.timer && ms === this.interval) return;
    this.interval = ms;
    clearInterval(this.timer);
    this.timer = ms > 0 ? setInterval(() => this.tick(), ms) : null;
    this.timer?.unref();
  }

  /**
   * Applies the daemon-wide `metrics` settings of an ecosystem file. The endpoint starts
   * with the first file that names `metrics.listen`; changing it needs a daemon restart.
   * @returns {Promise<string[]>} warnings for the `start` reply
   */
  async configure({ listen, interval }) {
    this.setInterval(interval);
    if (!listen || this.listen === listen) return [];
    if (this.endpoint) return [`metrics.listen changed to ${listen}, but the endpoint keeps serving on ${this.listen} until the daemon restarts`];
    const { startMetricsEndpoint } = await import('./metrics-endpoint.js');
    const { renderPrometheus } = await import('./prometheus-text.js');
    try {
      this.endpoint = await startMetricsEndpoint(listen, async () => renderPrometheus(await this.supervisor.ls(), daemonProcess()));
      this.endpoint.on('error', (err) => this.log.error({ err }, 'metrics endpoint error'));
      this.listen = listen;
      this.log.info({ listen }, 'metrics endpoint listening');
      return [];
    } catch (err) {
      this.log.error({ err, listen }, 'metrics endpoint could not listen');
      return [`the metrics endpoint could not listen on ${listen} (${err.code ?? err.message}); apps are started without it`];
    }
  }

  /** The settings in force, as a dump saves them (lib/master/saved/saved-state.js). */
  get settings() {
    return { listen: this.listen ?? null, interval: this.interval };
  }

  /** One sample of every worker, then health actions, then the push to subscribers. */
  async tick() {
    if (this.sampling) return this.sampling; // a slow sample is not stacked on
    this.sampling = (async () => {
      const recs = [...this.records.values()];
      await this.#sample(recs);
      const now = Date.now();
      for (const rec of recs) if (this.records.get(rec.pid) === rec) this.#judge(rec, now);
      if (this.subscribed('metrics')) this.broadcast('metrics', await this.supervisor.ls({ history: false }));
    })();
    try {
      await this.sampling;
    } catch (err) {
      this.log.error({ err }, 'metrics sample failed');
    } finally {
      this.sampling = null;
    }
  }

  async #sample(recs) {
    const started = new Map(recs.map((r) => [r.pid, r.proc.createdAt]));
    const costs = await this.sampler.sample(recs.map((r) => r.pid), started);
    const now = Date.now();
    for (const rec of recs) {
      const cost = costs.get(rec.pid);
      if (cost) rec.onSample(cost, now, 3 * Math.max(rec.proc.reportInterval, this.interval));
    }
  }

  /** For `ls`: workers never sampled yet (just started) are sampled now. */
  async ensureSampled(pids) {
    const missing = pids.map((p) => this.records.get(p)).filter((r) => r && r.cost === null);
    if (missing.length) await this.#sample(missing);
  }

  /** The metrics of worker `pid` (null if the daemon does not follow it). */
  metricsOf(pid, opts) {
    return this.records.get(pid)?.toJSON(Date.now(), opts) ?? null;
  }

  #judge(rec, now) {
    if (rec.acting) return;
    const app = this.supervisor.apps.get(rec.app);
    const slot = app?.slots[rec.slot];
    if (!slot || slot.proc !== rec.proc || slot.state !== S.ONLINE) return;
    const decision = decideHealthAction({
      cost: rec.cost,
      agentAt: rec.agentAt,
      createdAt: rec.proc.createdAt,
      hasAgent: rec.proc.reportInterval > 0,
      config: app.config,
      interval: rec.proc.reportInterval,
      now,
    });
    if (!decision) return;
    const who = { app: rec.app, slot: rec.slot, pid: rec.pid };
    if (decision.action === 'kill') {
      rec.acting = 'killed';
      this.log.error({ ...who, last_metrics: rec.toJSON(now) }, `${rec.app}#${rec.slot} ${decision.reason}; killing it (SIGKILL to its process group), the slot restarts`);
      rec.proc.signal('SIGKILL');
      return;
    }
    if (app.busy) return; // a reload/restart is changing the app: judge again next sample
    rec.acting = 'replacing';
    this.log.warn({ ...who, cost: rec.cost }, `${rec.app}#${rec.slot} ${decision.reason}; replacing it (ready-first)`);
    replaceSlot(app, rec.slot, decision.reason).then(
      (r) => {
        if (r) return this.log.info({ ...who, new_pid: r.pid }, `${rec.app}#${rec.slot} replaced (${decision.reason})`);
        rec.acting = null; // the app was busy (a reload, a stop): judged again next sample
        return undefined;
      },
      (err) => {
        rec.acting = null; // judged again at the next sample
        this.log.error({ ...who, err: err.message }, `${rec.app}#${rec.slot} could not be replaced: ${err.message}`);
      },
    );
  }

  close() {
    clearInterval(this.timer);
    this.endpoint?.close();
    this.endpoint?.closeAllConnections();
    workerProcesses.off('new', this.onNew);
    this.sampler.close();
  }
}

function daemonProcess() {
  const { user, system } = process.cpuUsage();
  return { cpuSeconds: (user + system) / 1e6, rss: process.memoryUsage.rss(), startTime: Math.round((Date.now() - process.uptime() * 1000) / 1000) };
}

/** The ready-first, one-slot replacement of `super reload` (App#replaceSlot). */
function replaceSlot(app, index, reason) {
  return Promise.resolve().then(() => app.replaceSlot(index, `max_memory_restart: ${reason}`));
}
