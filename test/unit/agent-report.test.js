// The daemon's check of a worker's metrics report (agentReport in lib/ipc/agent-protocol.cjs): the
// agent's own report passes unchanged; anything else is reduced to the agent's shape.
import test from 'node:test';
import assert from 'node:assert/strict';
import protocol from '../../lib/ipc/agent-protocol.cjs';

const { agentReport, MAX_RESOURCE_TYPES } = protocol;

// What lib/worker/metrics.cjs sends: if the agent's report gains a field, add it here and there.
const real = {
  loop: { p50: 0, p99: 1.25, max: 12.5, mean: 0.3 },
  elu: 0.042,
  ms: 1003, // the time the report covers
  heap: { used: 5_000_000, total: 8_000_000 },
  rss: 45_000_000,
  cpu_us: { user: 812_345, system: 104_000 }, // CPU time since the process started
  resources: { PipeWrap: 1, Timeout: 1, TCPServerWrap: 1 },
  http: { rps: 12.5, p99: 3.2, requests: 25, sum_us: 61250, inflight: 1.5 },
  overload: { shedding: true, shed: 40, inflight: 3 }, // null without the app's `overload:`
  connections: { open: 7, websockets: 5 },
};

test('the agent\'s report passes unchanged', () => {
  assert.deepEqual(agentReport(real), real);
  assert.deepEqual(agentReport({ ...real, http: { rps: 0, p99: null, requests: 0, sum_us: 0, inflight: 0 } }).http, { rps: 0, p99: null, requests: 0, sum_us: 0, inflight: 0 });
});

test('wrong types become null; a loop value needs p99 and max', () => {
  assert.deepEqual(agentReport({ loop: { p50: 'x', p99: [1], max: {} }, elu: 'high', heap: 'big', rss: null, http: [1] }),
    { loop: null, elu: null, ms: null, heap: null, rss: null, cpu_us: null, resources: null, http: null, overload: null, connections: null });
  assert.deepEqual(agentReport({ loop: { p99: 2, max: 3, mean: '1' }, heap: { used: '1', total: 2 } }).loop, { p50: null, p99: 2, max: 3, mean: null });
  assert.deepEqual(agentReport({ heap: { used: '1', total: 2 } }).heap, { used: null, total: 2 });
  assert.deepEqual(agentReport({}), { loop: null, elu: null, ms: null, heap: null, rss: null, cpu_us: null, resources: null, http: null, overload: null, connections: null });
  assert.deepEqual(agentReport({ overload: { shedding: 'yes', shed: '9', inflight: 2 } }).overload, { shedding: false, shed: null, inflight: 2 });
  // CPU times stand for /proc's figures: whole, not negative, both there, or none at all.
  for (const cpu of [5, { user: 1 }, { user: -1, system: 2 }, { user: 1.5, system: 2 }, { user: '1', system: 2 }]) assert.equal(agentReport({ cpu_us: cpu }).cpu_us, null, JSON.stringify(cpu));
});

test('resources: numeric counts with plain type names, at most MAX_RESOURCE_TYPES', () => {
  const many = { 'bad\nname': 1, Timeout: 'many', ok: 2, ['__proto__']: 3 };
  for (let i = 0; i < 1000; i++) many[`T${i}`] = i;
  const r = agentReport({ resources: many }).resources;
  assert.equal(Object.keys(r).length, MAX_RESOURCE_TYPES);
  assert.deepEqual(Object.keys(r).slice(0, 3), ['ok', 'T0', 'T1']);
  assert.equal(agentReport({ resources: [1, 2] }).resources, null);
});
