// The dashboard page: one websocket to the dashboard process, a store of what it says
// (hosts, history columns for the charts, log lines, actions in progress), and a render
// of it with Preact (view.js) whenever something arrives. Every string from an app goes
// through Preact as text, never as HTML.
/* global document, location, history, requestAnimationFrame -- a browser page */
import { render, h } from '/vendor/preact.mjs';
import { Dashboard } from '/view.js';
import { workerPoint, appPoint } from '/history.js';

const POINTS = 600; // 10 minutes of one point a second
const LOG_LINES = 1000; // kept; the view shows the last 300 that pass the filter

const store = {
  conn: 'connecting', hello: null, hosts: [],
  series: new Map(), // "host\0app[\0slot]" -> {t: [], cpu: [], rss: [], loop: [], rps: [], version}
  logs: [], logFilter: '', skipped: 0,
  actions: [], // [{id, action, label, status: "running"|"done"|"failed", progress: [], text}]
  confirm: null, // {label, run}
  open: new Set(), // "host\0app" of apps whose details are shown
  settings: new Map(), // "host\0app" -> rows [{key, value, resolved, default}] or error text
  token: takeToken(),
  code: takeCode(),
};

/** The token of the link (#token=...), kept for this tab only and taken out of the address bar. */
function takeToken() {
  const m = /[#&]token=([0-9a-f]{64})/.exec(location.hash);
  if (m) {
    sessionStorage.setItem('superd-token', m[1]);
    history.replaceState(null, '', location.pathname);
  }
  return sessionStorage.getItem('superd-token');
}

/** The one-time code of `super dashboard --open` (#code=...): traded for the token once connected. */
function takeCode() {
  const m = /[#&]code=([0-9a-f]{32})/.exec(location.hash);
  if (m) history.replaceState(null, '', location.pathname);
  return m ? m[1] : null;
}

let ws = null;
let nextId = 1;
let retry = 500;

function connect() {
  store.conn = 'connecting';
  // The token, when the tab has it, goes with the upgrade (a subprotocol): such a page is
  // let in even while pages without it fill their few slots.
  ws = new WebSocket(`${location.protocol === 'https:' ? 'wss' : 'ws'}://${location.host}/ws`, store.token ? ['superd', `superd.${store.token}`] : ['superd']);
  ws.onopen = () => {
    retry = 500;
    store.conn = 'open';
    if (store.code && !store.token) send({ type: 'auth', code: store.code });
    store.code = null;
    draw();
  };
  ws.onmessage = (e) => {
    onMessage(JSON.parse(e.data));
    draw();
  };
  ws.onclose = () => {
    store.conn = 'closed';
    draw();
    setTimeout(connect, retry);
    retry = Math.min(retry * 2, 10_000);
  };
}

const send = (m) => ws?.readyState === 1 && ws.send(JSON.stringify(m));

function series(key) {
  let s = store.series.get(key);
  if (!s) store.series.set(key, (s = { t: [], cpu: [], rss: [], loop: [], rps: [], version: 0 }));
  return s;
}

const GAP_S = 5; // seconds without a point that the charts show as a gap (points come every second)

function addPoint(key, [t, cpu, rss, loop, rps]) {
  const s = series(key);
  const last = s.t.length - 1;
  if (last >= 0 && s.t[last] >= t) return; // one point a second
  // No data for a while (the daemon restarted, the host was down): a gap, not a line across it.
  if (last >= 0 && s.t[last] !== null && t - s.t[last] > GAP_S) {
    s.t.push(s.t[last] + 1); s.cpu.push(null); s.rss.push(null); s.loop.push(null); s.rps.push(null);
  }
  s.t.push(t); s.cpu.push(cpu); s.rss.push(rss); s.loop.push(loop); s.rps.push(rps);
  if (s.t.length > POINTS) for (const k of ['t', 'cpu', 'rss', 'loop', 'rps']) s[k].splice(0, s[k].length - POINTS);
  s.version++;
}

/** The dashboard's history of a series, then the points this page already had after it. */
function setSeries(key, points) {
  const had = store.series.get(key);
  store.series.delete(key);
  for (const p of points) addPoint(key, p);
  if (had) for (let i = 0; i < had.t.length; i++) addPoint(key, [had.t[i], had.cpu[i], had.rss[i], had.loop[i], had.rps[i]]);
  series(key).version = (had?.version ?? 0) + 1;
}

function onMessage(m) {
  switch (m.type) {
    case 'hello':
      store.hello = m;
      if (m.needToken && store.token) { // a token of an earlier start of the dashboard: ask for the new one
        store.token = null;
        sessionStorage.removeItem('superd-token');
      }
      break;
    case 'token': // a one-time code traded: the token, for this tab
      store.token = m.token;
      sessionStorage.setItem('superd-token', m.token);
      break;
    case 'history':
      for (const [k, points] of Object.entries(m.series)) setSeries(`${m.host}\0${k}`, points);
      break;
    case 'state': {
      store.hosts = m.hosts;
      const t = Math.round(m.t / 1000);
      const live = new Set();
      for (const host of m.hosts) {
        for (const app of host.apps) {
          // a worker's own series only while its app is open: the page stays light with many workers
          const open = store.open.has(`${host.name}\0${app.name}`);
          const points = app.workers.map((w) => {
            const p = workerPoint(t, w);
            if (open) {
              live.add(`${host.name}\0${app.name}\0${w.slot}`);
              addPoint(`${host.name}\0${app.name}\0${w.slot}`, p);
            }
            return p;
          });
          live.add(`${host.name}\0${app.name}`);
          addPoint(`${host.name}\0${app.name}`, appPoint(t, points));
        }
      }
      // the series of apps and slots that are gone (a host that is down keeps its own, with
      // a gap from now on: no line across the time its daemon is away)
      const up = new Set(m.hosts.filter((h) => h.state === 'up' && !h.loading).map((h) => h.name));
      const down = new Set(m.hosts.filter((h) => h.state !== 'up').map((h) => h.name));
      for (const key of store.series.keys()) if (down.has(key.split('\0')[0])) addPoint(key, [t, null, null, null, null]);
      for (const key of store.series.keys()) if (up.has(key.split('\0')[0]) && !live.has(key)) store.series.delete(key);
      break;
    }
    case 'event': {
      // a worker's state change or a reload step, among the log lines (as super monit shows them)
      const e = m.data;
      const text = m.kind === 'worker'
        ? `${e.prev} -> ${e.state}${e.pid ? ` pid ${e.pid}` : ''}${e.reason ? ` (${e.reason})` : ''}${e.code != null ? ` code ${e.code}` : ''}${e.signal ? ` ${e.signal}` : ''}`
        : `reload ${e.step}${e.pid ? ` pid ${e.pid}` : ''}${e.reason ? ` (${e.reason})` : ''}`;
      store.logs.push({ host: m.host, app: e.app, slot: e.slot, stream: 'event', text });
      break;
    }
    case 'logs':
      store.logs.push(...m.lines);
      store.skipped += m.skipped;
      break;
    case 'progress': {
      const a = store.actions.find((x) => x.id === m.id);
      if (a) a.progress.push(m.data);
      break;
    }
    case 'result': {
      const a = store.actions.find((x) => x.id === m.id);
      if (!a) break;
      a.status = m.ok ? 'done' : 'failed';
      a.result = m.ok ? m.data : null;
      a.text = m.ok ? outcome(a, m.data) : `${m.error.code}: ${m.error.message}`;
      if (a.onResult) a.onResult(m);
      break;
    }
    case 'error': store.actions.unshift({ id: 0, label: 'dashboard', status: 'failed', progress: [], text: `${m.error.code}: ${m.error.message}` }); break;
    default: break;
  }
  store.actions.splice(20);
  if (store.logs.length > LOG_LINES) store.logs.splice(0, store.logs.length - LOG_LINES);
}

function outcome(a, data) {
  if (a.action === 'reload') {
    const apps = data?.apps ?? [];
    const failed = apps.filter((x) => !x.ok);
    return failed.length ? `failed: ${failed.map((x) => x.failed?.reason ?? x.app).join('; ')}` : `done: ${apps.map((x) => `${Array.isArray(x.replaced) ? x.replaced.length : x.replaced} worker(s) replaced in ${x.total_ms} ms`).join(', ')}`;
  }
  if (a.action === 'profile' || a.action === 'heap') return `${data.file} (${Math.round(data.bytes / 1024)} KiB)`;
  if (a.action === 'scale') return `${data.from} -> ${data.to} workers${data.holds ? `; ${data.holds}` : ''}`;
  return 'done';
}

/** Runs an action on the dashboard process (after the view's confirmation). */
function act(action, host, app, extra = {}) {
  const id = nextId++;
  const label = `${action} ${app}${extra.slot !== undefined ? `#${extra.slot}` : ''}${extra.count ? ` to ${extra.count}` : ''} on ${host}`;
  const entry = { id, action, label, status: 'running', progress: [], text: '' };
  if (action === 'profile' || action === 'heap') {
    entry.onResult = (m) => {
      if (!m.ok) return;
      const link = document.createElement('a');
      link.href = m.data.url;
      link.download = m.data.file;
      document.body.append(link);
      link.click();
      link.remove();
    };
  }
  store.actions.unshift(entry);
  send({ type: 'action', id, action, host, app, ...extra });
  draw();
}

function describe(host, app) {
  const key = `${host}\0${app}`;
  if (store.open.has(key)) {
    store.open.delete(key);
    return draw();
  }
  store.open.add(key);
  const id = nextId++;
  store.actions.unshift({ id, action: 'describe', label: `settings of ${app}`, status: 'running', progress: [], text: '', hidden: true,
    onResult: (m) => {
      store.settings.set(key, m.ok ? m.data.rows : `${m.error.code}: ${m.error.message}`);
      if (m.ok) for (const [k, points] of Object.entries(m.data.series)) setSeries(`${host}\0${k}`, points);
    } });
  send({ type: 'action', id, action: 'describe', host, app });
  draw();
}

const ui = {
  ask(label, run) { store.confirm = { label, run }; draw(); },
  answer(yes) { const c = store.confirm; store.confirm = null; if (yes) c.run(); draw(); },
  act, describe,
  setFilter(v) { store.logFilter = v; draw(); },
  setToken(v) { store.token = v.trim(); sessionStorage.setItem('superd-token', store.token); send({ type: 'auth', token: store.token }); },
};

let pending = false;
function draw() {
  if (pending) return;
  pending = true;
  requestAnimationFrame(() => {
    pending = false;
    render(h(Dashboard, { store, ui }), document.getElementById('root'));
  });
}

document.getElementById('root').textContent = '';
connect();
