// Draws the dashboard: a pure function from the model and the terminal size to the lines
// of one frame (ANSI styles only when `color`). Every line is cut to the width first,
// then styled, so a narrow terminal never wraps.
//
//   title bar                      apps, workers, daemon pid, clock, keys
//   worker table                   one row per worker; the selected one highlighted
//   ── app#slot pid ──             sparklines of the selected worker: CPU, loop delay p99
//                                  memory, heap, ELU, active handles, last exit, stall capture
//   ── logs: app ──                the selected app's live lines
//   status line                    a confirmation prompt or the last message
import { formatBytes, formatCpu, formatDuration, formatMs } from '../format.js';
import { sparkline } from './sparkline.js';

const STYLE = { inverse: '\x1b[7m', bold: '\x1b[1m', dim: '\x1b[2m', red: '\x1b[31m', yellow: '\x1b[33m', green: '\x1b[32m' };
const RESET = '\x1b[0m';
const COLUMNS = [
  ['app', 14], ['#', 3], ['pid', 8], ['status', 9], ['cpu', 7], ['memory', 8], ['heap', 13], ['loop p99', 9], ['req/s', 7], ['restarts', 9], ['uptime', 7], ['cpus', 8],
];

const fit = (s, w) => (s.length > w ? s.slice(0, w) : s.padEnd(w));

function cells(row) {
  const { app, worker: w } = row;
  if (!w) return [app.name, '-', '-', app.status, '-', '-', '-', '-', '-', '-', '-', '-'];
  const m = w.metrics ?? {};
  const heap = m.heap_used != null ? `${formatBytes(m.heap_used)}/${formatBytes(m.heap_total)}` : '-';
  const stale = m.report_age_ms != null && m.report_age_ms > 5000;
  // ⚑: profile_on_stall captured this worker (the detail pane names the file)
  const loop = m.loop_delay_ms ? `${formatMs(m.loop_delay_ms.p99)}${stale ? '?' : ''}${w.stall_capture ? '⚑' : ''}` : '-';
  return [app.name, String(w.slot), w.pid ? String(w.pid) : '-', w.status, w.pid ? formatCpu(m.cpu) : '-', w.pid ? formatBytes(m.memory) : '-', heap, loop,
    // ⊘: the worker sheds requests now (overload:)
    m.http_rps != null ? `${m.http_rps}${m.shedding ? '⊘' : ''}` : '-', String(w.restarts), formatDuration(w.uptime_ms),
    // the CPUs the worker may run on; "*" marks its own cpu_affinity set
    w.cpus ? `${w.cpus}${w.pinned ? '*' : ''}` : '-'];
}

const rowText = (values) => values.map((v, i) => fit(v, COLUMNS[i][1])).join(' ');

function titleText(model, now) {
  const workers = model.rows.filter((r) => r.worker).length;
  const clock = new Date(now).toTimeString().slice(0, 8);
  return ` superd monit  ${model.apps.length} app(s), ${workers} worker(s)  daemon pid ${model.daemon?.pid ?? '?'}  ${clock}`;
}

/**
 * The title and worker table of a frame as plain lines, uncut and without trailing blanks
 * (`super monit` when stdout is not a terminal: lib/ctl/monit/snapshot.js).
 * @param {import('./model.js').MonitModel} model
 * @returns {string[]}
 */
export function renderTable(model, now = Date.now()) {
  const rows = model.rows.length ? model.rows.map((r) => rowText(cells(r))) : ['no apps (start some with `super start <ecosystem.yml>`)'];
  return [titleText(model, now), rowText(COLUMNS.map((c) => c[0])), ...rows].map((l) => l.trimEnd());
}

/**
 * @param {import('./model.js').MonitModel} model
 * @param {{cols: number, rows: number, now?: number, color?: boolean}} size
 * @returns {string[]} exactly `rows` lines
 */
export function renderFrame(model, { cols, rows, now = Date.now(), color = true }) {
  const out = [];
  const line = (text, ...styles) => {
    const t = fit(text, cols);
    out.push(color && styles.length ? `${styles.map((s) => STYLE[s]).join('')}${t}${RESET}` : t);
  };
  const keys = '↑↓/jk select  r reload  p profile  q quit ';
  const title = titleText(model, now);
  line(title.length + keys.length < cols ? title + ' '.repeat(cols - title.length - keys.length) + keys : title, 'inverse');
  if (rows < 8 || cols < 40) {
    line('terminal too small: make it at least 40x8');
    while (out.length < rows) line('');
    return out.slice(0, rows);
  }

  // Heights: the table takes what it needs up to half the screen; detail 6; logs the rest.
  const detailH = 6;
  const statusH = 1;
  const free = rows - 1 - 1 - detailH - statusH; // title, header
  const tableH = Math.max(1, Math.min(model.rows.length || 1, Math.max(3, Math.floor(free / 2)), free - 2));
  line(rowText(COLUMNS.map((c) => c[0])), 'bold');
  if (model.rows.length === 0) line('no apps (start some with `super start <ecosystem.yml>`)', 'dim');
  const first = Math.max(0, Math.min(model.selected - Math.floor(tableH / 2), model.rows.length - tableH));
  for (let i = first; i < Math.min(model.rows.length, first + tableH); i++) {
    const r = model.rows[i];
    const st = r.worker?.status ?? r.app.status;
    const styles = i === model.selected ? ['inverse'] : st === 'errored' || st === 'exited' ? ['red'] : st === 'online' ? [] : ['yellow'];
    line(rowText(cells(r)), ...styles);
  }
  while (out.length < 2 + tableH) line('');

  // Detail of the selected worker.
  const sel = model.selectedRow();
  const w = sel?.worker;
  const m = w?.metrics ?? {};
  const h = w?.pid ? model.history.get(w.pid) : null;
  // The CPUs again here: the table's cpus column is past 80 columns.
  const cpus = w?.cpus ? ` cpus ${w.cpus}${w.pinned ? ' (pinned)' : ''}` : '';
  line(rule(sel ? ` ${sel.app.name}${w ? `#${w.slot} pid ${w.pid ?? '-'} ${w.status}${cpus}` : ''} ` : ' nothing selected ', cols), 'dim');
  const sparkW = Math.max(10, Math.min(60, cols - 40));
  if (w?.pid && h) {
    const cpuMax = Math.max(0, ...h.cpu.filter((v) => v != null));
    const loopMax = Math.max(0, ...h.loop.filter((v) => v != null));
    line(`cpu   ${sparkline(h.cpu, sparkW, 10)}  ${formatCpu(m.cpu)}  (peak ${formatCpu(cpuMax)})`);
    line(`loop  ${sparkline(h.loop, sparkW, 5)}  p99 ${formatMs(m.loop_delay_ms?.p99)}  max ${formatMs(m.loop_delay_ms?.max)}  (peak p99 ${formatMs(loopMax)})`);
    line(`mem ${formatBytes(m.memory)} in ${m.processes ?? '?'} process(es)  heap ${formatBytes(m.heap_used)}/${formatBytes(m.heap_total)}  elu ${m.elu ?? '-'}  http p99 ${formatMs(m.http_p99_ms)}  last report ${m.report_age_ms != null ? `${(m.report_age_ms / 1000).toFixed(1)}s ago` : 'none'}`);
    const res = Object.entries(m.resources ?? {}).sort((a, b) => b[1] - a[1]).map(([k, n]) => `${k} ${n}`).join(', ');
    const shed = m.shed_requests != null ? `  shed ${m.shed_requests}${m.shedding ? ' (shedding now)' : ''}` : '';
    line(`active: ${res || '-'}${shed}`);
    const exit = w.last_exit ? `last exit: ${w.last_exit.signal ? `signal ${w.last_exit.signal}` : `code ${w.last_exit.code}`} after ${formatDuration(w.last_exit.uptime_ms)}  ` : '';
    const stall = w.stall_capture ? `⚑ stall capture ${new Date(w.stall_capture.at).toTimeString().slice(0, 8)} (loop p99 ${formatMs(w.stall_capture.loop_p99_ms)}): ${w.stall_capture.file}` : '';
    line(`${exit}${stall}`);
  } else {
    for (let i = 0; i < detailH - 1; i++) line(i === 0 && sel ? 'no live worker selected' : '', 'dim');
  }

  // Logs of the selected app.
  const logs = sel ? (model.logs.get(sel.app.name) ?? []) : [];
  line(rule(` ${model.logSource === 'log' ? 'logs and events' : 'events'}: ${sel?.app.name ?? '-'} `, cols), 'dim');
  const logH = rows - out.length - statusH;
  const shown = logs.slice(-logH);
  for (const l of shown) line(l.replace(/[\x00-\x1f\x7f]/g, ' '));
  while (out.length < rows - statusH) line('');

  if (model.prompt) line(model.prompt.text, 'bold', 'yellow');
  else line(model.message ?? '', 'dim');
  return out.slice(0, rows);
}

const rule = (label, cols) => `──${label}${'─'.repeat(Math.max(0, cols - label.length - 2))}`;
