// The `super ls` table: one row per worker. id is the app's number, as PM2 numbers its list
// (`super stop 0`); cpu and memory count the worker's child processes too; loop p99 is the
// event-loop delay its agent last reported, or "stale" when it stopped reporting (a blocked loop).
import { formatDuration, formatBytes, formatCpu, formatMs, renderTable } from './format.js';
import { figuresText } from '../scale-figures.js';

export function renderLs({ apps }) {
  if (apps.length === 0) return 'no apps (start some with `super start <ecosystem.yml>`)';
  const rows = [];
  for (const app of apps) {
    const id = app.id ?? '-';
    if (app.workers.length === 0) rows.push([id, app.name, '-', '-', app.status, '-', '-', '-', '-', '-']);
    for (const w of app.workers) {
      rows.push([id, app.name, w.slot, w.pid ?? '-', w.status, formatDuration(w.uptime_ms), w.restarts, formatCpu(w.cpu), formatBytes(w.memory), w.metrics?.loop_stale ? 'stale' : formatMs(w.metrics?.loop_delay_ms?.p99)]);
    }
  }
  const table = renderTable(['id', 'app', 'slot', 'pid', 'status', 'uptime', 'restarts', 'cpu', 'memory', 'loop p99'], rows);
  return [table, ...apps.flatMap(autoscaleNote), ...apps.flatMap(reloadNote), ...apps.flatMap(startNote), ...apps.flatMap(stallNotes), ...apps.flatMap(shedNotes)].join('\n');
}

/** An autoscaled app under the table: `api: autoscale 3 of 1-4, up at 12:01:07 (elu 0.91)`. */
function autoscaleNote(app) {
  const a = app.autoscale;
  if (!a) return [];
  const l = a.last;
  const figures = l && figuresText(l.figures);
  const what = !l ? 'no step yet'
    : l.refused ? `${l.direction} refused at ${clock(l.at)}: ${l.refused}`
    : l.failed ? `${l.direction} failed at ${clock(l.at)}: ${l.failed}`
    : `${l.direction} at ${clock(l.at)}${figures ? ` (${figures})` : ''}`;
  return [`${app.name}: autoscale ${a.workers} of ${a.min}-${a.max}, ${what}`];
}

const clock = (ms) => new Date(ms).toTimeString().slice(0, 8);

/** Workers that shed requests (overload:), now or since their slot started, under the table. */
function shedNotes(app) {
  return app.workers.filter((w) => w.metrics?.shedding || w.metrics?.shed_requests > 0).map((w) => `${app.name}#${w.slot}: ${w.metrics.shedding ? 'shedding now (overloaded); ' : ''}${w.metrics.shed_requests} requests shed`);
}

/** The last stall capture of each worker (profile_on_stall), under the table. */
function stallNotes(app) {
  return app.workers.filter((w) => w.stall_capture).map((w) => {
    const c = w.stall_capture;
    return `${app.name}#${w.slot}: stall capture at ${clock(c.at)} (loop p99 ${formatMs(c.loop_p99_ms)}): ${c.file}`;
  });
}

/** Why a worker that is not running could not start (fork failed, no memory for it), under the table. */
const startError = (w) => ((w.status === 'exited' || w.status === 'errored') && w.last_exit?.error) || null;

/** Slots whose last start could not fork, in one line per app: `api: 20 slots could not start (#3: not enough memory ...)`. */
function startNote(app) {
  const failed = app.workers.filter(startError);
  if (!failed.length) return [];
  const n = failed.length === 1 ? `slot ${failed[0].slot} could` : `${failed.length} slots could`;
  return [`${app.name}: ${n} not start (#${failed[0].slot}: ${startError(failed[0])})`];
}

/** A failed last reload is shown under the table until the next reload succeeds. */
function reloadNote(app) {
  const r = app.last_reload;
  if (!r || r.ok) return [];
  const replaced = r.replaced.length ? `slot${r.replaced.length === 1 ? '' : 's'} ${r.replaced.join(', ')} run the new version, the others the old one` : 'every worker runs the old version';
  return [`${app.name}: last reload failed (slot ${r.failed.slot}: ${r.failed.reason}); ${replaced}`];
}

/** The documented --json shape of `super ls` (stable for scripts). */
export function lsJson({ apps }) {
  return {
    apps: apps.map((a) => ({
      id: a.id ?? null,
      name: a.name,
      status: a.status,
      instances: a.instances,
      namespace: a.namespace ?? 'default',
      last_reload: a.last_reload ?? null,
      autoscale: a.autoscale ?? null,
      workers: a.workers.map((w) => ({ slot: w.slot, pid: w.pid, status: w.status, uptime_ms: w.uptime_ms, restarts: w.restarts, cpu: w.cpu, memory: w.memory, cpus: w.cpus, pinned: w.pinned, replacing: w.replacing ?? null, metrics: w.metrics ?? null, stall_capture: w.stall_capture ?? null, start_error: startError(w) })),
    })),
  };
}
