// The dashboard process's model: the hosts (one HostLink each), their last `ls` snapshot,
// the history of the last minutes and the last log lines; and the pages (viewers) it sends
// them to. The first page subscribes every link, the last one leaving unsubscribes them.
//
// To a page (JSON text frames):
//   {type: "hello", canAct, readOnly, needToken}        on connect, and after auth
//   {type: "history", host, series: {key: [[t, cpu, rss, loop_p99_ms, rps], ...]}}  once per host
//   {type: "state", t, hosts: [{name, state, error, pid, version, loading, deploy, apps, more_apps}]}   at least once a second,
//     and at once when a host's deploy record changes (each step of a rollout is shown)
//     (deploy: what `super deploy` last recorded on the host, daemon-input.js checkDeploy, or null)
//     (at most SHOWN_APPS apps and SHOWN_WORKERS worker rows of a host: a page stays light
//     with thousands of apps; an app cut short has more_workers, the host more_apps)
//   {type: "logs", lines: [{host, app, slot, stream, text, t}], skipped}  t: when written (epoch ms; null: a line read back carries none)        as they come
//   {type: "event", host, kind: "worker"|"reload", data}                     restarts, reload steps
//   {type: "result", id, ok, data?, error?}, {type: "progress", id, data}   of an action
import { HistoryStore } from './history.js';
import { liveLine, tailLines } from './log-lines.js';

const TICK_MS = 250;
const FULL_EVERY_MS = 1000;
const LOG_RING = 500; // lines of each host kept for a page that opens
const LOG_BATCH = 400; // lines sent per tick at most; the rest are counted as skipped
const SLOW_PAGE_BYTES = 4 * 1024 * 1024; // a page this far behind gets no frame until it catches up
const SHOWN_APPS = 100; // apps of one host sent to pages
const SHOWN_WORKERS = 500; // worker rows of one host sent to pages

/**
 * @typedef {{link: import('./host-link.js').HostLink, apps: object[], deploy: object|null, logs: object[], seeded: boolean, tailed: boolean}} HostEntry
 *   seeded: apps holds the daemon's answer since the first page opened (not a stale one);
 *   tailed: the last lines of its log files came since the first page opened (the link's 'tail')
 */

export class Hub {
  /** @param {import('./host-link.js').HostLink[]} links */
  constructor(links) {
    this.history = new HistoryStore();
    /** @type {Map<string, HostEntry>} */
    this.hosts = new Map(links.map((link) => [link.name, { link, apps: [], deploy: null, logs: [], seeded: false, tailed: false }]));
    this.viewers = new Set();
    this.pendingLogs = [];
    this.skippedLogs = 0;
    this.dirty = false;
    this.lastFull = 0;
    this.timer = null;
    for (const link of links) this.#wire(link);
  }

  #wire(link) {
    const host = this.hosts.get(link.name);
    if (!host) return; // never: each link has its entry (constructor)
    // One host's bad data fails that host only: its link is dropped and retried.
    const guard = (fn) => (arg) => {
      try {
        fn(arg);
      } catch (err) {
        link.fail(err);
      }
    };
    link.on('state', () => {
      if (link.state !== 'up') {
        host.seeded = false;
        this.history.markGap(link.name, Date.now() / 1000); // no line across the time it is away
      }
      this.dirty = true;
    });
    link.on('seed', guard(({ apps, deploy }) => {
      host.deploy = deploy ?? null;
      const t = Date.now() / 1000;
      for (const app of apps) for (const w of app.workers) this.history.seedWorker(link.name, app.name, w.slot, w.metrics?.history, t, 1);
      host.apps = apps.map(strip);
      host.seeded = true;
      this.#toViewers(this.#historyMessage(link.name));
      this.dirty = true;
      this.#tick(); // the pages waiting for their first rows get them now
    }));
    // A page opened: the last lines of each log file, read by the daemon up to where its follow began.
    // Once per opening: a link that reconnects while pages are open (the daemon restarted) sends
    // it again, and those pages have these lines already.
    link.on('tail', guard((files) => {
      if (host.tailed) return;
      host.tailed = true;
      // each with the time it carries (null: none), the files' lines merged by those times
      const lines = tailLines(link.name, files, LOG_RING);
      host.logs = [...lines, ...host.logs].slice(-LOG_RING); // live lines that came first stay last
      if (lines.length) this.#toViewers({ type: 'logs', lines, skipped: 0 });
    }));
    link.on('event', guard(({ event, data }) => {
      if (event === 'metrics') {
        host.apps = data.apps.map(strip);
        host.deploy = data.deploy ?? null;
        this.history.addSnapshot(link.name, host.apps, Math.round(Date.now() / 1000));
        this.dirty = true;
      } else if (event === 'worker') {
        patchWorker(host.apps, data);
        this.dirty = true;
        this.#toViewers({ type: 'event', host: link.name, kind: 'worker', data });
      } else if (event === 'deploy') {
        // sent at once: a step shorter than a tick is shown too, each page sees every one
        host.deploy = data;
        this.dirty = true;
        this.#tick();
      } else if (event === 'reload') {
        this.#toViewers({ type: 'event', host: link.name, kind: 'reload', data });
      } else if (event === 'log') {
        this.#addLog(link.name, data);
      }
    }));
  }

  #addLog(hostName, data) {
    const host = this.hosts.get(hostName);
    if (!host) return; // never: only a link's events log, and each link has its entry
    if (data.skipped) this.skippedLogs += data.skipped;
    const now = Date.now();
    for (const line of String(data.text ?? '').split('\n')) {
      if (!line) continue;
      const entry = liveLine(hostName, data, line, now); // the time it carries, else now
      host.logs.push(entry);
      if (host.logs.length > LOG_RING) host.logs.splice(0, host.logs.length - LOG_RING);
      if (this.pendingLogs.length < LOG_BATCH) this.pendingLogs.push(entry);
      else this.skippedLogs++;
    }
  }

  /** A page connected; `viewer` = {send(obj), backlog(): bytes}. */
  addViewer(viewer) {
    this.viewers.add(viewer);
    for (const [name, host] of this.hosts) {
      viewer.send(this.#historyMessage(name));
      if (host.logs.length) viewer.send({ type: 'logs', lines: host.logs, skipped: 0 });
    }
    viewer.send(this.stateMessage());
    if (this.viewers.size === 1) {
      for (const { link } of this.hosts.values()) link.want(true);
      this.timer = setInterval(() => this.#tick(), TICK_MS);
    }
  }

  removeViewer(viewer) {
    if (!this.viewers.delete(viewer) || this.viewers.size) return;
    for (const host of this.hosts.values()) {
      host.link.want(false);
      // what the next page sees first is the daemon's answer then, not these old values
      host.seeded = false;
      host.apps = [];
      host.deploy = null;
      host.logs = []; // the next page's come from the log files (the link's 'tail')
      host.tailed = false;
    }
    clearInterval(this.timer ?? undefined);
    this.timer = null;
  }

  stateMessage(now = Date.now()) {
    const hosts = [...this.hosts.values()].map(({ link, apps, deploy, seeded }) => {
      const hello = link.hello ?? {};
      return {
        name: link.name, state: link.state, error: link.error,
        pid: Number.isSafeInteger(hello.pid) ? hello.pid : null, version: typeof hello.version === 'string' ? hello.version.slice(0, 64) : null,
        loading: link.state === 'up' && !seeded, deploy: link.state === 'up' ? deploy : null, ...shown(link.state === 'up' ? apps : []),
      };
    });
    return { type: 'state', t: now, hosts };
  }

  /** The history of the apps of `name` that pages are shown. */
  #historyMessage(name) {
    const series = this.history.dump(name);
    const names = new Set(shown(this.hosts.get(name)?.apps ?? []).apps.map((a) => a.name));
    for (const key of Object.keys(series)) if (!names.has(key)) delete series[key];
    return { type: 'history', host: name, series };
  }

  #tick(now = Date.now()) {
    if (this.pendingLogs.length || this.skippedLogs) {
      this.#toViewers({ type: 'logs', lines: this.pendingLogs, skipped: this.skippedLogs });
      this.pendingLogs = [];
      this.skippedLogs = 0;
    }
    if (!this.dirty && now - this.lastFull < FULL_EVERY_MS) return;
    this.dirty = false;
    this.lastFull = now;
    this.#toViewers(this.stateMessage(now));
  }

  #toViewers(msg) {
    if (!this.viewers.size) return;
    const text = JSON.stringify(msg);
    for (const v of this.viewers) if (v.backlog() < SLOW_PAGE_BYTES) v.sendText(text);
  }

  link(name) {
    return this.hosts.get(name)?.link ?? null;
  }

  close() {
    clearInterval(this.timer ?? undefined);
    for (const { link } of this.hosts.values()) link.close();
  }
}

/** The apps of a host a page is sent: the first SHOWN_APPS, SHOWN_WORKERS worker rows in all. */
function shown(apps) {
  const out = [];
  let rows = 0;
  for (const app of apps) {
    if (out.length >= SHOWN_APPS || rows >= SHOWN_WORKERS) break;
    const room = SHOWN_WORKERS - rows;
    out.push(app.workers.length > room ? { ...app, workers: app.workers.slice(0, room), more_workers: app.workers.length - room } : app);
    rows += Math.min(room, app.workers.length);
  }
  return { apps: out, more_apps: apps.length - out.length };
}

/** An app of `ls` without what the page does not show (the daemon's own sparkline points). */
function strip(app) {
  return { ...app, workers: app.workers.map((w) => (w.metrics?.history ? { ...w, metrics: { ...w.metrics, history: undefined } } : w)) };
}

/** A "worker" event applied to the last snapshot: a restart shows before the next one. */
function patchWorker(apps, e) {
  const w = apps.find((a) => a.name === e.app)?.workers.find((x) => x.slot === e.slot);
  if (!w) return;
  w.status = e.state;
  if (e.pid !== undefined) w.pid = e.pid;
  if (e.restarts !== undefined) w.restarts = e.restarts;
}
