// Issue 28: what the daemon and the CLI make of a shedding worker, as pure functions:
// /readyz's verdict (not ready only while every ready worker of the app sheds), the
// Prometheus series, the notes of `super ls` and the health line of `super describe`.
import test from 'node:test';
import assert from 'node:assert/strict';
import { appReadiness } from '../../lib/master/health/app-readiness.js';
import { renderPrometheus } from '../../lib/master/health/prometheus-text.js';
import { renderLs } from '../../lib/ctl/render-ls.js';
import { metricsLine } from '../../lib/ctl/render-metrics.js';

const app = (n) => ({ name: 'api', config: { instances: n, overload: { max_inflight: 8 } }, workers: Array.from({ length: n }, (_, i) => ({ status: 'online', pid: 100 + i })) });

test('readiness: an app is not ready while every ready worker sheds', () => {
  const shedding = (pids) => (pid) => pids.includes(pid);
  assert.deepEqual(appReadiness(app(2)), { app: 'api', desired: 2, ready: 2, shedding: 0, ok: true });
  assert.deepEqual(appReadiness(app(2), shedding([100])), { app: 'api', desired: 2, ready: 2, shedding: 1, ok: true });
  assert.deepEqual(appReadiness(app(2), shedding([100, 101])), { app: 'api', desired: 2, ready: 2, shedding: 2, ok: false });
  assert.equal(appReadiness(app(1), shedding([100])).ok, false);
  const plain = { ...app(1), config: { instances: 1, overload: null } };
  assert.deepEqual(appReadiness(plain, () => false), { app: 'api', desired: 1, ready: 1, ok: true }, 'no shedding field without overload:');
});

test('prometheus: shed requests are a per-slot counter beside a shedding gauge, only for apps with overload', () => {
  const ls = (metrics) => ({ apps: [{ name: 'api', workers: [{ slot: 0, pid: 100, status: 'online', restarts: 0, uptime_ms: 1000, metrics }] }] });
  const daemon = { cpuSeconds: 1, rss: 1, startTime: 1, version: '0', node: 'v20' };
  const counters = { cpuSeconds: 1, httpRequests: 10, httpSeconds: 0.1, shedRequests: 7 };
  const text = renderPrometheus(ls({ shedding: true, shed_requests: 7, report_age_ms: 10 }), daemon, { countersOf: () => counters });
  assert.match(text, /^# TYPE superd_worker_shed_requests_total counter$/m);
  assert.match(text, /^superd_worker_shed_requests_total\{app="api",slot="0"\} 7$/m);
  assert.match(text, /^superd_worker_shedding\{app="api",slot="0"\} 1$/m);
  const off = renderPrometheus(ls({ shedding: null, shed_requests: null, report_age_ms: 10 }), daemon, { countersOf: () => ({ ...counters, shedRequests: 0 }) });
  assert.doesNotMatch(off, /shed/);
});

test('ls and describe say which workers shed and how many requests they shed', () => {
  const worker = (metrics) => ({ slot: 0, pid: 100, status: 'online', uptime_ms: 1000, restarts: 0, cpu: 1, memory: 1e7, metrics });
  const ls = (metrics) => renderLs({ apps: [{ id: 0, name: 'api', status: 'online', workers: [worker(metrics)] }] });
  assert.match(ls({ shedding: true, shed_requests: 812 }), /^api#0: shedding now \(overloaded\); 812 requests shed$/m);
  assert.match(ls({ shedding: false, shed_requests: 3 }), /^api#0: 3 requests shed$/m);
  assert.doesNotMatch(ls({ shedding: null, shed_requests: null }), /shed/);
  assert.match(metricsLine(worker({ elu: 0.9, shedding: true, shed_requests: 812 })), /, shedding, 812 shed/);
  assert.doesNotMatch(metricsLine(worker({ elu: 0.1, shedding: null, shed_requests: null })), /shed/);
});
