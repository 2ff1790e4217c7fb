// The dashboard's state: the last snapshot from the daemon, each worker's recent history
// (kept here, from the snapshots pushed once per interval), the selection, and the
// lines of the log pane. No I/O: the controller feeds it, render.js draws it.
const HISTORY = 120;
const LOG_LINES = 200;

export class MonitModel {
  constructor() {
    this.apps = [];
    this.rows = []; // [{app, worker}] in display order
    this.selected = 0; // index into rows
    this.history = new Map(); // pid -> {cpu: [], loop: []}
    this.logs = new Map(); // app name -> [lines]
    this.prompt = null; // {text, app} while a confirmation is asked
    this.message = null; // one-line status (reload result, errors)
    this.daemon = null; // {pid}
    this.updatedAt = null;
    /** @type {'log'|'events'|null} where the log pane's lines come from (dashboard.js) */
    this.logSource = null;
  }

  /** A snapshot of `ls` (metrics topic, or the first `ls {history: true}`). */
  setSnapshot({ apps }, now = Date.now()) {
    const prev = this.selectedRow();
    this.apps = apps;
    this.rows = [];
    const live = new Set();
    for (const app of apps) {
      if (app.workers.length === 0) this.rows.push({ app, worker: null });
      for (const w of app.workers) {
        this.rows.push({ app, worker: w });
        if (!w.pid) continue;
        live.add(w.pid);
        const m = w.metrics;
        let h = this.history.get(w.pid);
        if (!h) {
          h = { cpu: [...(m?.history?.cpu ?? [])], loop: [...(m?.history?.loop_p99_ms ?? [])] };
          this.history.set(w.pid, h);
          if (m?.history) continue; // the seed already ends with this sample
        }
        push(h.cpu, m?.cpu ?? null);
        push(h.loop, m && m.report_age_ms !== null && m.report_age_ms < 5000 ? (m.loop_delay_ms?.p99 ?? null) : null);
      }
    }
    for (const pid of this.history.keys()) if (!live.has(pid)) this.history.delete(pid);
    // Keep the same worker selected (same app and slot) across snapshots.
    if (prev) {
      const i = this.rows.findIndex((r) => r.app.name === prev.app.name && (r.worker?.slot ?? null) === (prev.worker?.slot ?? null));
      if (i >= 0) this.selected = i;
    }
    this.selected = Math.max(0, Math.min(this.selected, this.rows.length - 1));
    this.updatedAt = now;
  }

  selectedRow() {
    return this.rows[this.selected] ?? null;
  }

  move(delta) {
    if (this.rows.length === 0) return;
    this.selected = Math.max(0, Math.min(this.rows.length - 1, this.selected + delta));
  }

  addLog(appName, line) {
    let lines = this.logs.get(appName);
    if (!lines) this.logs.set(appName, (lines = []));
    lines.push(line);
    if (lines.length > LOG_LINES) lines.splice(0, lines.length - LOG_LINES);
  }
}

function push(arr, v) {
  arr.push(v);
  if (arr.length > HISTORY) arr.splice(0, arr.length - HISTORY);
}
