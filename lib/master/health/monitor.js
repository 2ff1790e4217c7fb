// The daemon's health monitor: follows every worker process, keeps what its agent reports
// and what /proc says it costs, samples once per `metrics.interval`, acts on
// max_memory_restart / max_requests / unresponsive_timeout (health-rules.js), and pushes a
// snapshot to control connections subscribed to the "metrics" topic.
//
//   agent (worker) --IPC {cmd:'super:metrics'}--> WorkerProcess 'metrics' --> WorkerRecord
//   timer (interval) --> ProcessSampler (the report's CPU/RSS, or /proc; chunked) --> WorkerRecord.onSample
//                    --> decideHealthAction --> replaceSlot (given) | SIGKILL group
//                    --> broadcast('metrics', status view)   only when someone listens
//
// At rest it costs (nearly) nothing per idle worker: while nobody is subscribed to
// "metrics" it samples /proc only for apps with max_memory_restart, pings (asks for a
// report) only the agents of apps with unresponsive_timeout, and agents report only when
// asked (or once per interval for apps with max_requests, profile_on_stall or autoscale).
// `ls`, describe and a scrape ask every agent for a fresh report (bounded wait).
// While someone is subscribed, every worker is sampled and every agent reports once per
// interval (told by WATCH), as fresh as the interval says.
//
// It reads the apps through the registry's read-only face (apps/registry-reader.js) and
// acts on them only through the replaceSlot function it was given.
import { workerProcesses } from '../process/index.js';
import { ProcessSampler, TICKS_PER_SEC } from './process-sampler.js';
import { WorkerRecord, CounterStore } from './metrics-store.js';
import { decideHealthAction } from './health-rules.js';
import { renderPrometheus } from './prometheus-text.js';
import { appReadiness } from './app-readiness.js';
import { agentAnswer } from './agent-weight.js';
import { WORKER_STATES as S } from '../states.js';
import { lsView } from '../apps/index.js';

/** How long `ls`, describe and a scrape wait for the agents' fresh reports. */
const REFRESH_WAIT_MS = 250;

export class Monitor {
  /**
   * @param {object} o
   * @param {import('../apps/registry-reader.js').RegistryReader} o.reader
   * @param {import('./metrics-settings.js').MetricsSettings} o.settings  the sampling interval
   * @param {(app: string, slot: number, reason: string) => Promise<{pid: number}|null>} o.replaceSlot  a
   *   ready-first replacement of one worker; null when the app was busy
   * @param {import('../../logs/json-logger.js').JsonLogger} o.log
   * @param {(topic: string, data: object) => void} o.broadcast
   * @param {(topic: string) => boolean} o.subscribed  true when a connection listens to topic
   * @param {(now: number) => void} [o.afterSample]  called once each sample's figures are in (the autoscaler)
   * @param {(app: string, pid: number, now: number, interval: number) => void} [o.afterReport]  called after each
   *   agent report, with the worker's report interval (the autoscaler)
   * @param {string} [o.version]  superd's version, for superd_build_info
   * @param {() => object|null} [o.deploy]  what `super deploy` recorded on this daemon (in `ls` and the metrics event)
   */
  constructor({ reader, settings, replaceSlot, log, broadcast, subscribed, afterSample = () => {}, afterReport = () => {}, version = 'unknown', deploy = () => null }) {
    this.deploy = deploy;
    this.reader = reader;
    this.afterSample = afterSample;
    this.afterReport = afterReport;
    this.settings = settings;
    this.replaceSlot = replaceSlot;
    this.log = log;
    this.broadcast = broadcast;
    this.subscribed = subscribed;
    this.records = new Map(); // pid -> WorkerRecord
    this.counters = new CounterStore(); // per slot, across its workers (Prometheus counters)
    this.version = version;
    this.sampler = new ProcessSampler();
    this.agentFigures = (pid) => this.records.get(pid)?.own ?? null;
    this.timer = null;
    this.sampling = null;
    this.onNew = (proc) => this.#follow(proc);
    workerProcesses.on('new', this.onNew);
    this.onInterval = (ms) => this.#schedule(ms);
    settings.on('interval', this.onInterval);
    this.#schedule(settings.interval);
  }

  #follow(proc) {
    const { pid } = proc;
    if (!pid) return;
    const rec = new WorkerRecord(proc, this.counters.of(proc.appName, proc.slotIndex));
    this.records.set(proc.pid, rec);
    proc.on('metrics', (data) => {
      const now = Date.now();
      rec.onReport(data, now);
      this.afterReport(rec.app, pid, now, proc.reportInterval);
    });
    proc.once('exit', () => {
      rec.counters.shedRequests += proc.unreportedRefusals ?? 0;
      this.records.delete(proc.pid);
      this.sampler.forget(proc.pid);
    });
  }

  /** Samples every `ms` (daemon-wide `metrics.interval`; 0: never). */
  #schedule(ms) {
    clearInterval(this.timer ?? undefined);
    this.timer = ms > 0 ? setInterval(() => this.tick(), ms) : null;
    this.timer?.unref();
  }

  /** One sample of every worker, then health actions, then the push to subscribers. */
  async tick() {
    if (this.sampling) return this.sampling; // a slow sample is not stacked on
    this.sampling = (async () => {
      const watched = this.subscribed('metrics');
      const recs = [...this.records.values()];
      for (const rec of recs) {
        // profile_on_stall decides from the loop p99 of each report, autoscale from each
        // report's figures, max_requests from their request counts: their agents always report.
        const config = watched ? null : this.reader.config(rec.app);
        const watch = watched || Boolean(config?.profile_on_stall || config?.autoscale || config?.max_requests);
        if (rec.watched !== watch && rec.proc.watchReports(watch)) rec.watched = watch;
      }
      await this.#sample(watched ? recs : recs.filter((r) => this.reader.config(r.app)?.max_memory_restart));
      const now = Date.now();
      for (const rec of recs) if (this.records.get(rec.pid) === rec) this.#judge(rec, now);
      this.counters.prune((app, slot) => this.reader.worker(app, slot) !== null);
      this.afterSample(now);
      if (watched) this.broadcast('metrics', await this.status());
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
    const started = new Map();
    for (const r of recs) if (r.cost === null) started.set(r.pid, r.proc.createdAt); // a first sample's CPU % is since then
    const costs = await this.sampler.sample(recs.map((r) => r.pid), started, this.agentFigures);
    const now = Date.now();
    for (const rec of recs) {
      const cost = costs.get(rec.pid);
      if (cost) rec.onSample(cost, now, 3 * Math.max(rec.proc.reportInterval, this.settings.interval));
    }
  }

  /**
   * The metrics of every live worker, those never sampled yet (just started) sampled now.
   * @returns {Promise<(pid: number) => object|null>}  (`history`: with the sparkline points)
   */
  async sampledMetrics({ history = false } = {}) {
    const pids = this.reader.pids();
    await Promise.all([this.#ensureSampled(pids), this.#freshReports(pids)]);
    const now = Date.now();
    return (pid) => this.records.get(pid)?.toJSON(now, { history }) ?? null;
  }

  /**
   * What autoscale watches of worker `pid` since it last asked (metrics-store.js
   * takeScaleFigures); null when the agent's last report is older than two of its intervals
   * (the worker is starting, or too busy to report).
   * @returns {{elu: number|null, loop_delay: number|null, inflight: number|null}|null}
   */
  scaleFigures(pid, now = Date.now()) {
    return this.scaleFresh(pid, now) ? this.records.get(pid).takeScaleFigures() : null;
  }

  /** Whether worker `pid`'s agent reported within two of its intervals. */
  scaleFresh(pid, now = Date.now()) {
    const rec = this.records.get(pid);
    return Boolean(rec?.agent) && now - rec.agentAt <= 2 * rec.proc.reportInterval;
  }

  /** The RSS (bytes, with the processes it started) of each of `pids`, null if unknown: the surge memory guard. */
  async memoryOf(pids) {
    await this.#ensureSampled(pids);
    return pids.map((pid) => this.records.get(pid)?.toJSON(Date.now()).memory ?? null);
  }

  /** Samples the workers of `pids` not sampled within the interval (just started, or not watched). */
  async #ensureSampled(pids) {
    const stale = Date.now() - this.settings.interval;
    const missing = pids.map((p) => this.records.get(p)).filter((r) => r && (r.cost === null || r.costAt < stale));
    if (missing.length) await this.#sample(missing);
  }

  /**
   * Asks the agents of `pids` whose last report is older than their report interval
   * (metrics_interval) for one, and waits for the answers, at most REFRESH_WAIT_MS (a
   * blocked worker keeps its old one).
   */
  async #freshReports(pids) {
    const now = Date.now();
    const waits = [];
    for (const pid of pids) {
      const rec = this.records.get(pid);
      // A watched agent reports by itself each interval: asked only when it is late.
      const maxAge = rec && rec.proc.reportInterval * (rec.watched ? 2 : 1);
      if (rec && now - (rec.agentAt ?? 0) >= maxAge && rec.proc.requestReport()) waits.push(rec.nextReport());
    }
    if (!waits.length) return;
    let timer;
    await Promise.race([Promise.all(waits), new Promise((resolve) => { timer = setTimeout(resolve, REFRESH_WAIT_MS); })]);
    clearTimeout(timer);
  }

  /** The status view of every app and worker with its metrics (`ls`, the "metrics" broadcast). */
  async status({ history = false } = {}) {
    const metricsOf = await this.sampledMetrics({ history });
    const view = lsView(this.reader.snapshot(), metricsOf);
    const deploy = this.deploy();
    return deploy ? { ...view, deploy } : view;
  }

  /** The Prometheus text of the moment (the metrics endpoint, health/metrics-settings.js). */
  async prometheusText() {
    const metricsOf = await this.sampledMetrics();
    const now = Date.now();
    const countersOf = (app, slot) => {
      const c = this.counters.peek(app, slot);
      return c && { cpuSeconds: c.cpuTicks / TICKS_PER_SEC, httpRequests: c.httpRequests, httpSeconds: c.httpMicros / 1e6, shedRequests: c.shedRequests };
    };
    return renderPrometheus(lsView(this.reader.snapshot(now), metricsOf), { ...daemonProcess(), version: this.version }, { countersOf, now });
  }

  /**
   * The readiness of app `name` (GET /readyz?app=), or of every app not stopped on purpose
   * (`name` null); null when there is no app `name`.
   */
  readiness(name = null) {
    const apps = this.reader.snapshot().apps;
    // A worker shedding (overload:) says so in its reports, at once when it starts and stops.
    const shedding = (pid) => this.records.get(pid)?.agent?.overload?.shedding === true;
    const verdict = (app) => appReadiness(app, shedding);
    if (name === null) return apps.filter((a) => a.status !== S.STOPPED).map(verdict);
    const app = apps.find((a) => a.name === name);
    return app ? [verdict(app)] : null;
  }

  /**
   * The HAProxy agent's line for app `name` (every app not stopped: null), from the
   * snapshot and the workers' last reports (health/agent-weight.js).
   * @param {string|null} name
   */
  agentAnswer(name) {
    const figuresOf = (pid) => {
      const a = this.records.get(pid)?.agent;
      return a ? { elu: typeof a.elu === 'number' ? a.elu : null, shedding: a.overload?.shedding === true } : null;
    };
    return agentAnswer(this.reader.snapshot().apps, name, figuresOf);
  }

  #judge(rec, now) {
    if (rec.acting) return;
    const config = this.reader.config(rec.app);
    if (!config || this.reader.stateOf(rec.app, rec.slot, rec.proc) !== S.ONLINE) return;
    if (config.unresponsive_timeout) rec.ping(now);
    const decision = decideHealthAction({
      cost: rec.cost,
      unansweredSince: rec.unansweredSince,
      hasAgent: rec.proc.reportInterval > 0,
      config,
      interval: rec.proc.reportInterval,
      now,
      answered: rec.answeredRequests,
      jitterDraw: rec.jitterDraw,
    });
    if (!decision) return;
    const who = { app: rec.app, slot: rec.slot, pid: rec.pid };
    if (decision.action === 'kill') {
      rec.acting = 'killed';
      this.log.error({ ...who, last_metrics: rec.toJSON(now) }, `${rec.app}#${rec.slot} ${decision.reason}; killing it (SIGKILL to its process group), the slot restarts`);
      rec.proc.signal('SIGKILL');
      return;
    }
    if (this.reader.busy(rec.app)) return; // a reload/restart is changing the app: judge again next sample
    rec.acting = 'replacing';
    this.log.warn({ ...who, cost: rec.cost }, `${rec.app}#${rec.slot} ${decision.reason}; replacing it (ready-first)`);
    Promise.resolve().then(() => this.replaceSlot(rec.app, rec.slot, `${decision.rule}: ${decision.reason}`)).then(
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
    clearInterval(this.timer ?? undefined);
    this.settings.off('interval', this.onInterval);
    workerProcesses.off('new', this.onNew);
    this.sampler.close();
  }
}

function daemonProcess() {
  const { user, system } = process.cpuUsage();
  return { cpuSeconds: (user + system) / 1e6, rss: process.memoryUsage.rss(), startTime: Math.round(Date.now() / 1000 - process.uptime()), node: process.version };
}
