// The one status view (lib/master/apps/status-view.js): `ls`, `describe`, the "metrics"
// broadcast and the Prometheus text are all built from one registry snapshot plus the
// workers' metrics, so they can never disagree.
import test from 'node:test';
import assert from 'node:assert/strict';
import { lsView, describeView, workerRow } from '../../lib/master/apps/status-view.js';
import { renderPrometheus } from '../../lib/master/health/prometheus-text.js';
import { MASK } from '../../lib/mask-secrets.js';

const worker = (slot, pid, status = 'online') => ({ slot, pid, status, uptime_ms: 1500, restarts: slot, unstable_restarts: 0, cpus: null, pinned: false });

function snapshot() {
  const config = { name: 'api', instances: 2, exec_mode: 'cluster', env: { DB_PASSWORD: 'hunter2', PORT: '3000' } };
  return {
    scheduling: 'round-robin',
    daemon_cpus: null,
    apps: [
      {
        name: 'api',
        status: 'online',
        config,
        pending_config: { ...config, instances: 4 },
        last_reload: { at: 1, ok: true, replaced: [0, 1] },
        logs: { out: '/l/api-out.log', err: '/l/api-err.log' },
        workers: [worker(0, 101), worker(1, null, 'errored')],
      },
      { name: 'jobs', status: 'stopped', config: { name: 'jobs', instances: 1, exec_mode: 'fork' }, pending_config: null, last_reload: null, logs: { out: 'o', err: 'e' }, workers: [] },
    ],
  };
}

const metrics = { 101: { cpu: 12.5, memory: 50e6, processes: 1, http_rps: 3 } };
const metricsOf = (pid) => metrics[pid] ?? null;

test('ls: one row per app and worker, metrics only for live workers, config kept out', () => {
  const asked = [];
  const view = lsView(snapshot(), (pid) => {
    asked.push(pid);
    return metricsOf(pid);
  });
  assert.deepEqual(asked, [101], 'metrics are asked for live workers only');
  assert.deepEqual(view.apps.map((a) => [a.name, a.status, a.instances, a.exec_mode]), [['api', 'online', 2, 'cluster'], ['jobs', 'stopped', 1, 'fork']]);
  const [w0, w1] = view.apps[0].workers;
  assert.deepEqual([w0.cpu, w0.memory, w0.metrics], [12.5, 50e6, metrics[101]]);
  assert.deepEqual([w1.cpu, w1.memory, w1.metrics, w1.status], [null, null, null, 'errored']);
  assert.deepEqual(view.apps[0].last_reload, { at: 1, ok: true, replaced: [0, 1] });
  assert.equal(view.apps[1].last_reload, undefined, 'no reload yet: the key is left out of the JSON');
  for (const app of view.apps) assert.ok(!('config' in app) && !('logs' in app), 'ls carries no config or log paths');
});

test('describe: the ls row plus masked config, pending keys, logs and what the caller read', () => {
  const snap = snapshot();
  const view = describeView(snap, 'api', metricsOf, { lastStderr: 'boom', watch: null });
  assert.deepEqual(view.app.workers, lsView(snap, metricsOf).apps[0].workers, 'the same worker rows as ls');
  assert.equal(view.app.config.env.DB_PASSWORD, MASK, 'secrets masked');
  assert.equal(view.app.config.env.PORT, '3000');
  assert.equal(snap.apps[0].config.env.DB_PASSWORD, 'hunter2', 'the snapshot is not changed');
  assert.deepEqual(view.app.pending_config, ['instances']);
  assert.deepEqual([view.app.scheduling, view.app.last_stderr, view.app.watch, view.app.logs.err], ['round-robin', 'boom', null, '/l/api-err.log']);
  assert.equal(describeView(snap, 'jobs', metricsOf, { lastStderr: '', watch: null }).app.pending_config, undefined);
  assert.equal(describeView(snap, 'nope', metricsOf, { lastStderr: '', watch: null }), null);
});

test('the Prometheus text and the metrics broadcast come from the ls rows', () => {
  const countersOf = (app, slot) => ({ cpuSeconds: 1.5 + slot, httpRequests: 7 });
  const text = renderPrometheus(lsView(snapshot(), metricsOf), { cpuSeconds: 1, rss: 2, startTime: 3, version: '1.2.3', node: 'v24.0.0' }, { countersOf });
  assert.match(text, /^superd_worker_up\{app="api",slot="0"\} 1$/m);
  assert.match(text, /^superd_worker_up\{app="api",slot="1"\} 0$/m);
  assert.match(text, /^superd_worker_info\{app="api",slot="0",pid="101"\} 1$/m);
  assert.doesNotMatch(text, /superd_worker_info\{app="api",slot="1"/, 'no info series for a slot without a process');
  assert.match(text, /^superd_worker_cpu_seconds_total\{app="api",slot="1"\} 2.5$/m, 'a slot keeps its counters while it has no process');
  assert.doesNotMatch(text, /superd_worker_resident_memory_bytes\{app="api",slot="1"/, 'no cost series for a worker without a process');
  assert.match(text, /^superd_app_workers\{app="api",status="errored"\} 1$/m);
  assert.match(text, /^superd_build_info\{version="1.2.3",node="v24.0.0"\} 1$/m);
});

test('ids come first; a file-less app\'s command is masked like its env; a file source is shown as is', () => {
  const snap = snapshot();
  snap.apps[0] = { ...snap.apps[0], id: 3, source: { command: { script: 'srv.js', env: { API_TOKEN: 'abc' } } } };
  snap.apps[1] = { ...snap.apps[1], id: 4, source: { file: '/srv/eco.yml', env: 'prod' } };
  const ls = lsView(snap, metricsOf);
  assert.deepEqual(ls.apps.map((a) => Object.keys(a)[0] === 'id' && a.id), [3, 4]);
  const api = describeView(snap, 'api', metricsOf, { lastStderr: '', watch: null, cron: { pattern: '0 3 * * *', next: null } }).app;
  assert.equal(api.source.command.env.API_TOKEN, MASK);
  assert.equal(snap.apps[0].source.command.env.API_TOKEN, 'abc', 'the snapshot is not changed');
  assert.deepEqual(api.cron_restart, { pattern: '0 3 * * *', next: null });
  const jobs = describeView(snap, 'jobs', metricsOf, { lastStderr: '', watch: null }).app;
  assert.deepEqual([jobs.source, jobs.cron_restart], [{ file: '/srv/eco.yml', env: 'prod' }, undefined]);
});

test('a worker row without metrics says null, not 0', () => {
  assert.deepEqual(workerRow({ slot: 0, pid: 7 }, null), { slot: 0, pid: 7, cpu: null, memory: null, metrics: null });
});
