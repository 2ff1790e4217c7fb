// The pure parts of super capacity: the bounded rate search and the option checks.
import test from 'node:test';
import assert from 'node:assert/strict';
import { searchMaxRate } from '../../lib/capacity/search.js';
import { parseOptions, parseSlo, parsePath, parseTarget } from '../../lib/capacity/options.js';
import { recommend } from '../../lib/capacity/render.js';
import { stopReason } from '../../lib/capacity/run.js';

/** A service that keeps its objective up to `limit` r/s. */
const upTo = (limit) => async (rate) => ({ rate, ok: rate <= limit });

test('the search doubles, then bisects to within 5 % of the highest passing rate', async () => {
  const s = await searchMaxRate({ probe: upTo(83), start: 10, maxRate: 100000, probes: 20 });
  assert.deepEqual(s.probes.map((p) => p.rate).slice(0, 5), [10, 20, 40, 80, 160]);
  assert.ok(s.max_rps <= 83 && s.max_rps >= 83 * 0.95, `max ${s.max_rps}`);
  assert.equal(s.best.rate, s.max_rps);
  assert.ok(s.failed.rate > 83);
  assert.equal(s.bound, null);
});

test('the search is bounded by probes, by the rate bound and by time, and says which', async () => {
  assert.equal((await searchMaxRate({ probe: upTo(1e9), start: 10, maxRate: 100, probes: 20 })).bound, 'rate');
  assert.equal((await searchMaxRate({ probe: upTo(1e9), start: 10, maxRate: 100, probes: 20 })).max_rps, 100);
  const few = await searchMaxRate({ probe: upTo(1e9), start: 10, maxRate: 1e6, probes: 3 });
  assert.deepEqual([few.bound, few.probes.length, few.max_rps], ['probes', 3, 40]);
  let left = 2;
  const timed = await searchMaxRate({ probe: upTo(1e9), start: 10, maxRate: 1e6, probes: 20, canProbe: () => left-- > 0 });
  assert.deepEqual([timed.bound, timed.probes.length], ['time', 2]);
});

test('a service that fails at every rate has a capacity of 0', async () => {
  const s = await searchMaxRate({ probe: upTo(0), start: 10, maxRate: 1000, probes: 20 });
  assert.equal(s.max_rps, 0);
  assert.equal(s.best, null);
  assert.equal(s.failed.rate, 1);
});

test('options: objectives, paths, targets and bounds', () => {
  assert.deepEqual(parseSlo('p99=20ms'), { p99: 20 });
  assert.deepEqual(parseSlo('p99=20ms, p99.9=0.5s'), { p99: 20, 'p99.9': 500 });
  for (const bad of [undefined, '', 'p99', 'p99=20', 'p42=20ms', 'p99=0ms', 'p99=2m', 'p99=1ms,p99=2ms']) {
    assert.throws(() => parseSlo(bad), { code: 'E_USAGE' }, String(bad));
  }
  assert.equal(parsePath(), '/');
  assert.equal(parsePath('/10000?x=1'), '/10000?x=1');
  for (const bad of ['http://127.0.0.1:3001/', '//evil.example/x', '10000', '/a b']) assert.throws(() => parsePath(bad), { code: 'E_USAGE' }, bad);
  assert.equal(parseTarget('25/s'), 25);
  assert.equal(parseTarget('25'), 25);
  assert.throws(() => parseTarget('lots'), { code: 'E_USAGE' });
  const plan = parseOptions({ slo: 'p99=20ms' }, 2);
  assert.deepEqual([plan.maxInstances, plan.stepMs, plan.connections, plan.maxTimeMs, plan.port], [3, 10000, 10, 600000, null]);
  assert.deepEqual([parseOptions({ slo: 'p99=20ms', warmup: '500ms', port: '8123' }, 2)].map((p) => [p.warmupMs, p.port]), [[500, 8123]]);
  for (const o of [{ maxInstances: '0' }, { stepDuration: '10ms' }, { connections: 'x' }, { maxRate: '5', startRate: '10' }, { maxTime: '1s', stepDuration: '2s' }, { port: '0' }, { port: '65536' }, { port: '80x' }, { warmup: '-1s' }]) {
    assert.throws(() => parseOptions({ slo: 'p99=20ms', ...o }, 2), { code: 'E_USAGE' }, JSON.stringify(o));
  }
});

test('the recommendation for a target, and why no more instances are tried', () => {
  const rows = [{ instances: 1, max_rps: 12 }, { instances: 2, max_rps: 23 }, { instances: 3, max_rps: 32 }];
  assert.deepEqual(recommend(rows, 25), { target_rps: 25, instances: 3, max_rps: 32, headroom_pct: 28 });
  assert.equal(recommend(rows, 40).instances, null);
  const plan = { cpus: 2, maxTimeMs: 60000, maxRate: 1000 };
  const row = (instances, max_rps, generator_cpu = 0.1, machine_cpu = 0.5) => ({ instances, max_rps, generator_cpu, generator_saturated: generator_cpu >= 0.9, machine_cpu });
  assert.equal(stopReason([row(1, 10), row(2, 19)], { plan, maxInstances: 5 }), null);
  assert.equal(stopReason([row(1, 10), row(2, 19), row(3, 19)], { plan, maxInstances: 5 }).reason, 'cpus');
  assert.equal(stopReason([row(1, 10), row(2, 10)], { plan, maxInstances: 5 }).reason, 'elsewhere');
  assert.equal(stopReason([row(1, 10), row(2, 10, 0.1, 0.95)], { plan, maxInstances: 5 }).reason, 'cpus');
  assert.equal(stopReason([row(1, 10, 0.95)], { plan, maxInstances: 5 }).reason, 'generator');
  assert.equal(stopReason([row(1, 10)], { plan, maxInstances: 1 }).reason, 'max-instances');
  assert.equal(stopReason([row(1, 10)], { plan, maxInstances: 1, forkMode: true }).reason, 'fork-mode');
  assert.equal(stopReason([row(1, 10)], { plan, bound: 'time', maxInstances: 5 }).reason, 'time');
});
