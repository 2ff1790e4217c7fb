// What the daemon knows about each live worker's health: the agent's last report, the
// last sample of its process tree, and a short history for sparklines. Keyed by pid, so
// an old and a new worker of the same slot (during a ready-first replacement) never mix.

/** Points kept per worker: one per sample (1 s by default), a minute of history. */
const HISTORY = 60;

/** A fixed-size ring of numbers (null = no value at that point). */
export class Ring {
  constructor(size = HISTORY) {
    this.values = new Array(size).fill(null);
    this.next = 0;
    this.count = 0;
  }

  push(v) {
    this.values[this.next] = v ?? null;
    this.next = (this.next + 1) % this.values.length;
    this.count = Math.min(this.count + 1, this.values.length);
  }

  /** Oldest first. */
  toArray() {
    const n = this.values.length;
    const out = [];
    for (let i = n - this.count; i < n; i++) out.push(this.values[(this.next + i) % n]);
    return out;
  }
}

/**
 * Prometheus counters of one worker slot (app + slot), the identity of a worker's series.
 * They outlive the slot's workers, so a restart or a reload is neither a new series nor a
 * counter reset. CPU is kept in whole clock ticks (exact: no float sums).
 */
class SlotCounters {
  /** @param {string} app  @param {number} slot */
  constructor(app = '', slot = 0) {
    this.app = app;
    this.slot = slot;
  }

  cpuTicks = 0;
  httpRequests = 0;
  httpMicros = 0; // response times summed, µs (integers: exact)
  shedRequests = 0; // answered by the agent's overload guard, not by the app
}

/** The SlotCounters of every slot, dropped when their slot is gone (app deleted, scaled down). */
export class CounterStore {
  #slots = new Map(); // "app\0slot" -> SlotCounters

  /** @returns {SlotCounters} */
  of(app, slot) {
    const key = `${app}\0${slot}`;
    let c = this.#slots.get(key);
    if (!c) this.#slots.set(key, (c = new SlotCounters(app, slot)));
    return c;
  }

  /** The counters of a slot if it has any, without creating them. */
  peek(app, slot) {
    return this.#slots.get(`${app}\0${slot}`) ?? null;
  }

  /** @param {(app: string, slot: number) => boolean} exists */
  prune(exists) {
    for (const [key, c] of this.#slots) if (!exists(c.app, c.slot)) this.#slots.delete(key);
  }
}

/** What a WorkerRecord adds up between two reads of autoscale's figures (takeScaleFigures). */
const emptyScaleSums = () => ({ ms: 0, busyMs: 0, inflight: 0, inflightKnown: false, loop: 0, shed: 0 });

const count = (n) => (Number.isSafeInteger(n) && n > 0 ? n : 0);

export class WorkerRecord {
  /**
   * @param {import('../process/worker-process.js').WorkerProcess} proc
   * @param {SlotCounters} [counters]  its slot's counters (the monitor's CounterStore)
   */
  constructor(proc, counters = new SlotCounters()) {
    this.proc = proc;
    this.counters = counters;
    this.pid = proc.pid;
    this.app = proc.appName;
    this.slot = proc.slotIndex;
    this.agent = null; // last {loop, elu, ms, heap, rss, cpu_us, resources, http, overload, connections} from the worker
    this.agentAt = null; // when it arrived (ms epoch)
    /** @type {import('./process-sampler.js').AgentFigures|null} */
    this.own = null; // the worker's own CPU time and RSS from that report, for the sampler
    this.cost = null; // last {cpu, memory, processes} of the process tree
    this.costAt = null;
    this.history = { cpu: new Ring(), memory: new Ring(), loop: new Ring() };
    this.acting = null; // 'replacing' | 'killed' while an action on this worker runs
    this.answeredRequests = 0; // HTTP requests this worker answered (its reports summed): max_requests
    this.jitterDraw = Math.random(); // where in max_requests_jitter this worker's limit falls, drawn once
    // Worst loop delay of the reports between two samples: a worker may report more often
    // than the daemon samples, and a spike must not be overwritten before anyone sees it.
    this.window = null; // {p99, max} of reports since the last sample
    this.lastWindow = null; // the same, for the interval that ended at the last sample
    this.staleMs = 3000; // a report older than this is stale (onSample says, from the report interval)
    this.pingedAt = null; // when the daemon last asked the agent for a report (liveness)
    this.watched = false; // the agent was told to report once per interval
    /** @type {{promise: Promise<void>, resolve: () => void}|null} */
    this.answered = null; // resolves the waiters of the next report
    // What autoscale reads (takeScaleFigures): the reports since its last read, each weighed
    // by the time it covers. A report asked for by `ls` or a scrape may cover a few ms, and
    // one request served in them would read as an ELU of 1.
    this.scaleSums = emptyScaleSums();
    /** @type {{elu: number, loop_delay: number, inflight: number|null, shed: number}|null} */
    this.scaleLast = null;
  }

  onReport(data, now = Date.now()) {
    this.agent = data;
    this.agentAt = now;
    this.own = data.cpu_us && typeof data.rss === 'number' ? { user: data.cpu_us.user, system: data.cpu_us.system, rss: data.rss, at: now } : null;
    this.counters.httpRequests += count(data.http?.requests);
    this.answeredRequests += count(data.http?.requests);
    this.counters.httpMicros += count(data.http?.sum_us);
    this.counters.shedRequests += count(data.overload?.shed);
    if (typeof data.elu === 'number') {
      const ms = data.ms > 0 ? data.ms : 1000; // an agent from before `ms` (a worker started by an older superd)
      const sums = this.scaleSums;
      sums.ms += ms;
      sums.busyMs += data.elu * ms;
      if (typeof data.http?.inflight === 'number') {
        sums.inflight += data.http.inflight * ms;
        sums.inflightKnown = true;
      }
      sums.loop = Math.max(sums.loop, data.loop?.p99 ?? 0);
      sums.shed += count(data.overload?.shed);
    }
    this.answered?.resolve();
    this.answered = null;
    const l = data.loop;
    if (!l) return;
    this.window = this.window ? { p99: Math.max(this.window.p99, l.p99), max: Math.max(this.window.max, l.max) } : { p99: l.p99, max: l.max };
  }

  /**
   * The figures autoscale watches over the reports since the last call: ELU and in-flight
   * requests weighed by the time each report covers, the worst loop p99, and the requests
   * its overload shedding refused (autoscale reads a worker that shed as at its up bounds:
   * decide.js). With no report since, the last call's figures (null before any).
   */
  takeScaleFigures() {
    const s = this.scaleSums;
    if (s.ms > 0) {
      const round = (v) => Math.round(v * 1000) / 1000;
      this.scaleLast = { elu: round(s.busyMs / s.ms), loop_delay: s.loop, inflight: s.inflightKnown ? round(s.inflight / s.ms) : null, shed: s.shed };
      this.scaleSums = emptyScaleSums();
    }
    return this.scaleLast;
  }

  /** Asks the agent for a report unless an ask is still unanswered (the liveness ping). */
  ping(now = Date.now()) {
    if (this.unansweredSince !== null) return;
    if (this.proc.requestReport()) this.pingedAt = now;
  }

  /** When the oldest ask the agent has not answered (by any report) was sent; null: none. */
  get unansweredSince() {
    return this.pingedAt !== null && (this.agentAt ?? -Infinity) < this.pingedAt ? this.pingedAt : null;
  }

  /** Resolves at the agent's next report (never, if it sends none: race it with a bound). */
  nextReport() {
    if (!this.answered) {
      /** @type {(v?: unknown) => void} */
      let resolve = () => {}; // replaced by the promise's own, at once
      const promise = new Promise((r) => { resolve = r; });
      this.answered = { promise, resolve };
    }
    return this.answered.promise;
  }

  /** The agent's last loop delay, with p99/max the worst of the last sample interval. */
  get loop() {
    const l = this.agent?.loop;
    if (!l) return null;
    const w = this.lastWindow;
    return w ? { ...l, p99: Math.max(l.p99, w.p99), max: Math.max(l.max, w.max) } : l;
  }

  /** @param {number} staleMs  a report older than this is not a current loop value */
  onSample(cost, now = Date.now(), staleMs = 3000) {
    this.staleMs = staleMs;
    this.cost = cost;
    this.costAt = now;
    this.counters.cpuTicks += count(cost.cpuTicks);
    this.lastWindow = this.window;
    this.window = null;
    this.history.cpu.push(cost.cpu);
    this.history.memory.push(cost.memory);
    // The loop point is the last report, if it is fresh (a blocked worker reports nothing).
    const fresh = this.agentAt !== null && now - this.agentAt < staleMs;
    this.history.loop.push(fresh ? this.loop?.p99 : null);
  }

  /** The metrics of this worker as `ls --json`, describe and `super monit` show them. */
  toJSON(now = Date.now(), { history = false } = {}) {
    const a = this.agent;
    const out = {
      cpu: this.cost?.cpu ?? null,
      memory: this.cost?.memory ?? null,
      processes: this.cost?.processes ?? null,
      loop_delay_ms: this.loop,
      elu: a?.elu ?? null,
      heap_used: a?.heap?.used ?? null,
      heap_total: a?.heap?.total ?? null,
      rss_self: a?.rss ?? null,
      resources: a?.resources ?? null,
      http_rps: a?.http?.rps ?? null,
      http_p99_ms: a?.http?.p99 ?? null,
      http_inflight: a?.http?.inflight ?? null, // requests in flight, averaged over the report's interval
      // With the app's `overload:` key: whether it sheds now, and the slot's shed requests.
      shedding: a?.overload ? a.overload.shedding : null,
      shed_requests: a?.overload ? this.counters.shedRequests : null,
      // Connections open in the worker's servers at its last report, and how many are websockets.
      connections: a?.connections?.open ?? null,
      websockets: a?.connections?.websockets ?? null,
      report_age_ms: this.agentAt === null ? null : now - this.agentAt,
      // The agent stopped reporting (a blocked loop): loop_delay_ms is its last word, not now's.
      loop_stale: this.agentAt !== null && now - this.agentAt >= this.staleMs,
    };
    if (history) out.history = { cpu: this.history.cpu.toArray(), memory: this.history.memory.toArray(), loop_p99_ms: this.history.loop.toArray() };
    return out;
  }
}
