// The dashboard's memory of the last minutes: one bounded ring of samples per app and per
// worker slot of each host, fed by the daemon's "metrics" snapshots (one a second) and
// sent whole to a page when it opens. Bounded twice: points per series (10 minutes at one
// a second) and series per store (a host with thousands of short-lived apps cannot grow
// it): the series not fed for longest goes first. No imports: the page loads this file too
// (/history.js), so its charts compute their points as the dashboard process does.

const HISTORY_POINTS = 600;
const MAX_SERIES = 4000;
// A point is [t, cpu, rss, loop_p99_ms, rps]: t in seconds since the epoch, as uPlot wants.

/** A fixed-size ring of points; oldest first out of toArray(). */
export class Ring {
  constructor(size = HISTORY_POINTS) {
    this.size = size;
    this.items = [];
    this.next = 0;
  }

  push(item) {
    if (this.items.length < this.size) this.items.push(item);
    else this.items[this.next] = item;
    this.next = (this.next + 1) % this.size;
  }

  toArray() {
    return this.items.length < this.size ? this.items.slice() : [...this.items.slice(this.next), ...this.items.slice(0, this.next)];
  }

  get length() {
    return this.items.length;
  }

  /** The newest item (undefined when empty). */
  last() {
    return this.items.length < this.size ? this.items.at(-1) : this.items[(this.next + this.size - 1) % this.size];
  }
}

/** One point of a worker from its `ls` metrics (null for what it does not report). */
export function workerPoint(t, w) {
  const m = w.metrics ?? {};
  const live = Boolean(w.pid);
  const fresh = m.report_age_ms != null && !m.loop_stale;
  return [t, live ? (m.cpu ?? null) : null, live ? (m.memory ?? null) : null, live && fresh ? (m.loop_delay_ms?.p99 ?? null) : null, live && fresh ? (m.http_rps ?? null) : null];
}

/** An app's point: the sum of its workers' CPU, memory and requests, the worst loop delay. */
export function appPoint(t, points) {
  const sum = (i) => (points.some((p) => p[i] != null) ? points.reduce((a, p) => a + (p[i] ?? 0), 0) : null);
  const loops = points.map((p) => p[3]).filter((v) => v != null);
  return [t, sum(1), sum(2), loops.length ? Math.max(...loops) : null, sum(4)];
}

export class HistoryStore {
  constructor({ points = HISTORY_POINTS, maxSeries = MAX_SERIES } = {}) {
    this.points = points;
    this.maxSeries = maxSeries;
    this.series = new Map(); // key -> Ring; Map order = least recently fed first
  }

  /** Appends one point to the series `key` (app: "host\u0000app", worker: "...\u0000slot"). */
  add(key, point) {
    let ring = this.series.get(key);
    if (ring) this.series.delete(key); // re-inserted: most recently fed last
    else ring = new Ring(this.points);
    ring.push(point);
    this.series.set(key, ring);
    while (this.series.size > this.maxSeries) this.series.delete(this.series.keys().next().value);
  }

  /** Feeds one `ls` snapshot of `host` (every app and worker) at time t (seconds). */
  addSnapshot(host, apps, t) {
    for (const app of apps) {
      const points = app.workers.map((w) => {
        const p = workerPoint(t, w);
        this.add(seriesKey(host, app.name, w.slot), p);
        return p;
      });
      this.add(seriesKey(host, app.name), appPoint(t, points));
    }
  }

  /**
   * A gap in every series of `host` at time t (seconds): its daemon went away (restarted,
   * unreachable), so the charts break the line there instead of drawing it across the
   * time without data. One null point per series, not repeated while it stays away.
   */
  markGap(host, t) {
    const prefix = `${host}\u0000`;
    for (const [key, ring] of this.series) {
      if (!key.startsWith(prefix) || ring.length === 0) continue;
      const last = ring.last();
      if (last.slice(1).every((v) => v === null)) continue; // already a gap
      ring.push([Math.max(Math.round(t), last[0] + 1), null, null, null, null]);
    }
  }

  /**
   * Seeds a worker from the daemon's own history (ls {history: true}: one point per
   * metrics interval, newest last) when the dashboard has nothing of it yet.
   */
  seedWorker(host, app, slot, h, t, intervalS) {
    const key = seriesKey(host, app, slot);
    if (this.series.has(key) || !h?.cpu?.length) return;
    const n = h.cpu.length;
    for (let i = 0; i < n; i++) this.add(key, [t - (n - i) * intervalS, h.cpu[i] ?? null, h.memory?.[i] ?? null, h.loop_p99_ms?.[i] ?? null, null]);
  }

  /**
   * The app series of `host` as {app: [[t, ...], ...]} (what a page gets when it opens), or
   * with `app` the series of that app's workers as {"app\u0000slot": [...]} (when the page
   * opens the app: 100 workers' 10 minutes are about 2 MB of JSON, not sent unasked).
   */
  dump(host, app) {
    const out = {};
    const prefix = app === undefined ? `${host}\u0000` : `${host}\u0000${app}\u0000`;
    for (const [key, ring] of this.series) {
      if (!key.startsWith(prefix)) continue;
      const rest = key.slice(host.length + 1);
      if (app === undefined && rest.includes('\u0000')) continue;
      out[rest] = ring.toArray();
    }
    return out;
  }
}

/** The key of an app's series, or of one of its worker slots. */
export const seriesKey = (host, app, slot) => (slot === undefined ? `${host}\u0000${app}` : `${host}\u0000${app}\u0000${slot}`);
