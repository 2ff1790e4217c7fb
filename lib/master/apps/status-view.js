// The one status view: from a registry snapshot (registry-reader.js snapshot()) and the
// workers' metrics, the rows of `ls`, of `describe`, of the "metrics" broadcast (`super
// monit`) and what lib/master/health/prometheus-text.js renders. Data in, data out (the
// workers of the snapshot given become the rows), so what every view shows is decided
// (and tested) in one place.
import { maskConfig } from '../../mask-secrets.js';
import { changedKeys } from './config-diff.js';
import { countsCpus } from '../../config/instances.js';

/**
 * @typedef {(pid: number) => object|null} MetricsOf  the metrics of a live worker (the
 *   monitor's WorkerRecord.toJSON), null when none are known
 */

/**
 * One worker's row: its slot snapshot plus its metrics (cpu and memory also at top level).
 * The snapshot, made for this view, becomes the row: a copy of it cost ~4 µs a worker
 * (the spread of an object holding undefined fields takes V8's slow path), every second
 * for every worker while someone watches.
 */
export function workerRow(worker, metrics) {
  worker.cpu = metrics?.cpu ?? null;
  worker.memory = metrics?.memory ?? null;
  worker.metrics = metrics ?? null;
  return worker;
}

/** One app's row of `ls`. @param {MetricsOf} metricsOf */
function appRow(app, metricsOf) {
  return {
    id: app.id ?? null,
    name: app.name,
    status: app.status,
    instances: app.config.instances,
    exec_mode: app.config.exec_mode,
    namespace: app.config.namespace,
    last_reload: app.last_reload ?? undefined,
    autoscale: autoscaleRow(app),
    workers: app.workers.map((w) => workerRow(w, w.pid ? metricsOf(w.pid) : null)),
  };
}

/** An autoscaled app's bounds, its workers now and its last step; undefined: a fixed count. */
function autoscaleRow(app) {
  const a = app.config.autoscale;
  if (!a) return undefined;
  return { min: a.min, max: a.max, workers: app.workers.length, last: app.last_autoscale ?? null };
}

/**
 * `ls`: every app and worker with its metrics. The "metrics" broadcast and the
 * Prometheus text are built from the same rows.
 * @param {{apps: object[]}} snapshot
 * @param {MetricsOf} metricsOf
 */
export function lsView(snapshot, metricsOf) {
  return { apps: snapshot.apps.map((app) => appRow(app, metricsOf)) };
}

/**
 * `describe <name>`: the app's `ls` row, the daemon's scheduling and CPUs, its log files,
 * its config with secrets masked, the keys a pending config changes, what the caller
 * read from outside the snapshot, and where the app came from (a file-less app's command
 * masked like its env). Null when the snapshot has no such app.
 * @param {object} snapshot  @param {string} name  @param {MetricsOf} metricsOf
 * @param {{lastStderr: string, watch: object|null, cron?: object|null, connections?: {path: string, why: string}|null}} extra  the tail of its
 *   stderr file, its watch status (lib/master/watch/watcher.js status()), its cron_restart
 *   schedule (cron-restart.js status()), the way its connections reach its workers
 *   (lib/master/process/connection-path.js; null in fork mode)
 */
export function describeView(snapshot, name, metricsOf, { lastStderr, watch, cron = null, connections = null }) {
  const app = snapshot.apps.find((a) => a.name === name);
  if (!app) return null;
  return {
    app: {
      ...appRow(app, metricsOf),
      scheduling: snapshot.scheduling,
      connections: connections ?? undefined,
      daemon_cpus: snapshot.daemon_cpus,
      // How many CPUs `max` counts, when the cgroup's CPU limit sets it (lib/cgroup-cpu.js).
      cpus_note: countsCpus(app.config.instances_spec) && snapshot.cpu_note ? snapshot.cpu_note : undefined,
      logs: app.logs,
      config: maskConfig(app.config),
      pending_config: app.pending_config ? changedKeys(app.config, app.pending_config) : undefined,
      cron_restart: cron ?? undefined,
      last_stderr: lastStderr,
      watch,
      source: app.source?.command ? { ...app.source, command: maskConfig(app.source.command) } : (app.source ?? null),
    },
  };
}
