// The dashboard's view: hosts -> apps -> workers, charts, settings, actions and logs.
// Preact renders every value as text (app names, log lines, env values included).
/* global document -- a browser page */
import { h } from '/vendor/preact.mjs';
import htm from '/vendor/htm.mjs';
import { Spark } from '/charts.js';

const html = htm.bind(h);
const SHOWN_LOG_LINES = 300;

const bytes = (v) => (v == null ? '-' : v >= 1 << 30 ? `${(v / (1 << 30)).toFixed(1)} GiB` : v >= 1 << 20 ? `${(v / (1 << 20)).toFixed(1)} MiB` : `${Math.round(v / 1024)} KiB`);
const pct = (v) => (v == null ? '-' : `${v.toFixed(1)} %`);
const ms = (v) => (v == null ? '-' : `${v < 10 ? v.toFixed(1) : Math.round(v)} ms`);
const num = (v) => (v == null ? '-' : String(Math.round(v)));
function duration(v) {
  if (v == null) return '-';
  const s = Math.floor(v / 1000);
  return s < 60 ? `${s}s` : s < 3600 ? `${Math.floor(s / 60)}m${s % 60}s` : s < 86400 ? `${Math.floor(s / 3600)}h${Math.floor((s % 3600) / 60)}m` : `${Math.floor(s / 86400)}d${Math.floor((s % 86400) / 3600)}h`;
}
/** "TCPSocketWrap 3, Timeout 1", the biggest first: a pile of one type shows at a glance. */
const types = (o) => (o ? Object.entries(o).sort((a, b) => b[1] - a[1]).map(([k, n]) => `${k} ${n}`).join(', ') : '-');

function Charts({ store, skey, small }) {
  const s = store.series.get(skey);
  if (!s) return null;
  const w = small ? 150 : 220;
  const chart = (label, col, color, format, floor) => html`<div class="chart"><div class="label">${label}</div>
    <${Spark} data=${[s.t, s[col]]} version=${s.version} width=${w} height=${small ? 56 : 76} color=${color} format=${format} floor=${floor} /></div>`;
  return html`<div class="charts">
    ${chart('CPU %', 'cpu', '#58a6ff', (v) => v.toFixed(0), 1)}
    ${chart('memory', 'rss', '#a371f7', (v) => bytes(v), 1)}
    ${chart('loop delay p99 ms', 'loop', '#d29922', (v) => v.toFixed(0), 1)}
    ${chart('requests/s', 'rps', '#3fb950', (v) => v.toFixed(0), 1)}
  </div>`;
}

function Actions({ store, ui, host, app }) {
  if (!store.hello?.canAct) return null;
  const ask = (label, run) => () => ui.ask(label, run);
  const scale = () => {
    const input = document.getElementById(`scale-${host}-${app.name}`);
    const count = input?.value.trim();
    if (!/^[+-]?\d{1,4}$/.test(count ?? '')) return;
    ui.ask(`Scale ${app.name} on ${host} to ${count} workers?`, () => ui.act('scale', host, app.name, { count }));
  };
  return html`<span class="buttons">
    <button data-action="reload" onClick=${ask(`Reload ${app.name} on ${host} (every worker replaced, ready first)?`, () => ui.act('reload', host, app.name))}>reload</button>
    <button data-action="restart" class="danger" onClick=${ask(`Restart ${app.name} on ${host} (hard: in-flight requests may fail)?`, () => ui.act('restart', host, app.name))}>restart</button>
    ${app.status === 'stopped'
      ? html`<button data-action="start" onClick=${ask(`Start ${app.name} on ${host}?`, () => ui.act('start', host, app.name))}>start</button>`
      : html`<button data-action="stop" class="danger" onClick=${ask(`Stop ${app.name} on ${host}?`, () => ui.act('stop', host, app.name))}>stop</button>`}
    <input id=${`scale-${host}-${app.name}`} size="3" placeholder="N" aria-label="workers" />
    <button data-action="scale" onClick=${scale}>scale</button>
  </span>`;
}

/** With the app's overload: key, ` ⊘` while the worker sheds, and its slot's shed requests. */
const shedText = (m) => (m.shed_requests == null ? '' : `${m.shedding ? ' ⊘' : ''} (${m.shed_requests} shed)`);

/** `2 worker(s)`, or for an autoscaled app `autoscale 2 of 1-4, up at 12:01:07`. */
function countText(app) {
  const a = app.autoscale;
  if (!a) return `${app.workers.length + (app.more_workers ?? 0)} worker(s)`;
  const l = a.last;
  const step = l ? `, ${l.direction}${l.refused ? ' refused' : l.failed ? ' failed' : ''} at ${new Date(l.at).toTimeString().slice(0, 8)}` : '';
  return `autoscale ${a.workers} of ${a.min}-${a.max}${step}`;
}

function Worker({ store, ui, host, app, w }) {
  const m = w.metrics ?? {};
  const canAct = store.hello?.canAct && w.pid;
  return html`<tr data-worker=${`${app.name}#${w.slot}`} data-pid=${w.pid ?? ''} data-restarts=${w.restarts}>
    <td>#${w.slot}</td><td class=${`st-${w.status}`}>${w.status}</td><td>${w.pid ?? '-'}</td><td>${duration(w.uptime_ms)}</td>
    <td class="restarts">${w.restarts}</td><td class="cpu">${w.pid ? pct(m.cpu) : '-'}</td><td class="rss">${w.pid ? bytes(m.memory) : '-'}</td>
    <td>${ms(m.loop_delay_ms?.p99)}${m.loop_stale ? ' ?' : ''}</td><td class="rps">${num(m.http_rps)}${shedText(m)}</td>
    <td class="conns">${num(m.connections)}${m.websockets ? ` (${m.websockets} ws)` : ''}</td>
    <td class="types">${types(m.resources)}</td>
    <td>${canAct ? html`<button data-action="profile" onClick=${() => ui.ask(`Profile the CPU of ${app.name}#${w.slot} on ${host} for 10 s, then download it?`, () => ui.act('profile', host, app.name, { slot: w.slot }))}>CPU profile</button>
      <button data-action="heap" onClick=${() => ui.ask(`Take a heap snapshot of ${app.name}#${w.slot} on ${host} (pauses it) and download it?`, () => ui.act('heap', host, app.name, { slot: w.slot }))}>heap</button>` : null}</td>
  </tr>`;
}

function App({ store, ui, host, app }) {
  const key = `${host}\0${app.name}`;
  const open = store.open.has(key);
  const settings = store.settings.get(key);
  return html`<section class="app" data-app=${app.name}>
    <div class="app-head">
      <span class="app-name" title="settings" onClick=${() => ui.describe(host, app.name)}>${open ? '▾' : '▸'} ${app.name}</span>
      <span class=${`st-${app.status}`}>${app.status}</span><span class="note">${countText(app)}</span>
      <${Actions} store=${store} ui=${ui} host=${host} app=${app} />
    </div>
    <${Charts} store=${store} skey=${key} />
    <table>
      <thead><tr><th>slot</th><th>state</th><th>pid</th><th>uptime</th><th>restarts</th><th>CPU</th><th>memory</th><th>loop p99</th><th>req/s</th><th>connections</th><th>active handles and requests</th><th></th></tr></thead>
      <tbody>${app.workers.map((w) => html`<${Worker} key=${w.slot} store=${store} ui=${ui} host=${host} app=${app} w=${w} />`)}</tbody>
    </table>
    ${app.more_workers ? html`<p class="note more">${app.more_workers} more workers not shown (super ls lists them all)</p>` : null}
    ${open ? html`<div class="settings">
      ${app.workers.map((w) => html`<div><span class="note">#${w.slot}</span><${Charts} store=${store} skey=${`${key}\0${w.slot}`} small=${true} /></div>`)}
      ${settings === undefined || typeof settings === 'string' ? html`<p class="note">${settings ?? 'loading settings...'}</p>` : html`<table class="settings-table">
        <thead><tr><th>setting</th><th>as written</th><th>resolved</th></tr></thead>
        <tbody>${settings.map((r) => html`<tr class=${r.default ? 'default' : ''} data-setting=${r.key}><td>${r.key}</td><td>${r.value}${r.default ? html` <span class="note">default</span>` : null}</td><td class="note">${r.resolved ?? ''}</td></tr>`)}</tbody>
      </table>`}
    </div>` : null}
  </section>`;
}

/** What `super deploy` last recorded on the host: its release, state and step (text only: the page escapes it). */
function Deploy({ deploy: d }) {
  const what = d.state === 'rolling' || d.state === 'reverting' ? `${d.state === 'rolling' ? 'deploying' : 'reverting to'} ${d.version}: ${d.step}` : `deploy ${d.version}: ${d.state}`;
  return html`<span class="note" data-deploy=${d.state}>${what}${d.reason ? ` (${d.reason})` : ''}</span>`;
}

function Host({ store, ui, host }) {
  return html`<section class="host" data-host=${host.name}>
    <h2>${host.name} <span class=${`state-${host.state}`} data-state=${host.state}>${host.state}</span>
      ${host.pid ? html`<span class="note">daemon pid ${host.pid}, superd ${host.version}</span>` : null}
      ${host.state !== 'up' && host.error ? html`<span class="note">${host.error}; retrying by itself</span>` : null}
      ${host.deploy ? html`<${Deploy} deploy=${host.deploy} />` : null}</h2>
    ${host.apps.length === 0 && host.state === 'up' ? html`<p class="note app">${host.loading ? 'loading...' : 'no apps'}</p>` : null}
    ${host.apps.map((app) => html`<${App} key=${app.name} store=${store} ui=${ui} host=${host.name} app=${app} />`)}
    ${host.more_apps ? html`<p class="note app more" data-more-apps=${host.more_apps}>${host.more_apps} more apps not shown (super ls lists them all)</p>` : null}
  </section>`;
}

function Logs({ store, ui }) {
  const f = store.logFilter.toLowerCase();
  const shown = [];
  for (let i = store.logs.length - 1; i >= 0 && shown.length < SHOWN_LOG_LINES; i--) {
    const l = store.logs[i];
    const prefix = `${l.host} ${l.app}${l.slot == null ? '' : `#${l.slot}`}`;
    if (!f || `${prefix} ${l.text}`.toLowerCase().includes(f)) shown.push({ ...l, prefix });
  }
  shown.reverse();
  return html`<section class="logs">
    <div><b>logs</b> <input id="log-filter" placeholder="filter (app, slot, text)" value=${store.logFilter} onInput=${(e) => ui.setFilter(e.currentTarget.value)} />
      <span class="note">last ${SHOWN_LOG_LINES} matching lines${store.skipped ? `; ${store.skipped} skipped (too fast)` : ''}</span></div>
    <pre id="log-lines">${shown.map((l) => html`<div class=${l.stream === 'err' || l.stream === 'event' ? l.stream : ''}>${l.stream === 'event' ? null : logTime(l.t)}<span class="note">${l.prefix} </span>${l.text}</div>`)}</pre>
  </section>`;
}

const two = (n) => String(n).padStart(2, '0');

/**
 * When a line was written: 14:03:07 today, 2026-11-27 14:03:07 before; "earlier" for a line
 * read back from a file that carries no time (time: true or log_date_format date them).
 */
function logTime(t) {
  if (t == null) return html`<span class="time" title="written before the dashboard watched; the line carries no time (time: true or log_date_format dates them)">earlier </span>`;
  const d = new Date(t);
  const clock = `${two(d.getHours())}:${two(d.getMinutes())}:${two(d.getSeconds())}`;
  const today = new Date().toDateString() === d.toDateString();
  return html`<span class="time" title=${d.toISOString()}>${today ? clock : `${d.getFullYear()}-${two(d.getMonth() + 1)}-${two(d.getDate())} ${clock}`} </span>`;
}

function TokenForm({ store, ui }) {
  const hello = store.hello;
  if (!hello || hello.canAct || (hello.readOnly && !hello.needToken)) return null;
  const submit = (e) => {
    e.preventDefault();
    ui.setToken(e.currentTarget.elements.token.value);
  };
  return html`<form class="token" onSubmit=${submit}><span class="note">${hello.needToken ? 'This dashboard needs its token to show anything:' : 'Actions need the dashboard token:'}</span>
    <input name="token" type="password" size="30" autocomplete="off" placeholder="dashboard token" /> <button>use</button></form>`;
}

export function Dashboard({ store, ui }) {
  const acts = store.actions.filter((a) => !a.hidden);
  return html`<header>
      <h1>superd</h1><span class="note" id="conn">${store.conn === 'open' ? 'live' : store.conn}</span>
      <span class="note">${store.hello?.readOnly ? 'read-only' : store.hello?.canAct ? 'actions enabled' : ''}</span>
      <span class="spacer"></span><${TokenForm} store=${store} ui=${ui} />
    </header>
    ${store.confirm ? html`<div class="confirm" role="dialog"><span>${store.confirm.label}</span>
      <button id="confirm-yes" onClick=${() => ui.answer(true)}>yes</button><button onClick=${() => ui.answer(false)}>cancel</button></div>` : null}
    ${acts.length ? html`<div class="actions-log">${acts.map((a) => html`<div data-action-id=${a.id} data-status=${a.status} class=${a.status === 'failed' ? 'fail' : a.status === 'done' ? 'done' : ''}>
      ${a.label}: ${a.status}${a.progress.length ? ` (${progressText(a.progress)})` : ''}${a.text ? ` - ${a.text}` : ''}</div>`)}</div>` : null}
    ${store.hosts.map((host) => html`<${Host} key=${host.name} store=${store} ui=${ui} host=${host} />`)}
    <${Logs} store=${store} ui=${ui} />`;
}

/** A reload's progress: how many slots are ready, and the last step. */
function progressText(steps) {
  const ready = steps.filter((s) => s.step === 'ready').length;
  const last = steps[steps.length - 1];
  return `${ready} ready, last: ${last.step}${last.slot !== undefined ? ` #${last.slot}` : ''}`;
}
