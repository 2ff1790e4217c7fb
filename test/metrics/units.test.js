// Pure parts of the metrics feature: health rules, the history ring, the loop window,
// and the dashboard's keys, sparkline and frame.
import test from 'node:test';
import assert from 'node:assert/strict';
import { decideHealthAction } from '../../lib/master/health/health-rules.js';
import { Ring, WorkerRecord } from '../../lib/master/health/metrics-store.js';
import { sparkline } from '../../lib/ctl/monit/sparkline.js';
import { parseKeys } from '../../lib/ctl/monit/keys.js';
import { MonitModel } from '../../lib/ctl/monit/model.js';
import { renderFrame } from '../../lib/ctl/monit/render.js';

const M = 1048576;
const base = { cost: { memory: 100 * M }, unansweredSince: 10000, hasAgent: true, interval: 1000, now: 10500, config: { max_memory_restart: null, unresponsive_timeout: null } };

test('health rules: memory over the limit -> replace; at or under -> nothing', () => {
  assert.equal(decideHealthAction({ ...base, config: { ...base.config, max_memory_restart: 100 * M } }), null);
  const d = decideHealthAction({ ...base, config: { ...base.config, max_memory_restart: 99 * M } });
  assert.equal(d.action, 'replace');
  assert.match(d.reason, /memory 100\.0 MiB is above max_memory_restart \(99\.0 MiB\)/);
  assert.equal(decideHealthAction({ ...base, cost: null, config: { ...base.config, max_memory_restart: 1 } }), null, 'no sample yet');
});

test('health rules: max_requests answered -> replace; its jitter raises each worker\'s limit by 0 to jitter', () => {
  const cfg = { ...base.config, max_requests: 100 };
  assert.equal(decideHealthAction({ ...base, config: cfg, answered: 99 }), null);
  const d = decideHealthAction({ ...base, config: cfg, answered: 100 });
  assert.deepEqual([d.action, d.rule, d.reason], ['replace', 'max_requests', 'answered 100 requests (max_requests: 100 for this worker)']);
  const jittered = { ...cfg, max_requests_jitter: 10 };
  assert.equal(decideHealthAction({ ...base, config: jittered, answered: 100, jitterDraw: 0 }).action, 'replace', 'the lowest draw: the limit itself');
  assert.equal(decideHealthAction({ ...base, config: jittered, answered: 109, jitterDraw: 0.99 }), null, 'the highest draw: 110');
  assert.equal(decideHealthAction({ ...base, config: jittered, answered: 110, jitterDraw: 0.99 }).reason, 'answered 110 requests (max_requests: 110 for this worker)');
  assert.equal(decideHealthAction({ ...base, config: jittered, answered: 1e6, jitterDraw: 0.5, cost: { memory: 200 * M } }).action, 'replace');
});

test('health rules: a ping unanswered longer than unresponsive_timeout (and 3 intervals) -> kill', () => {
  const cfg = { ...base.config, unresponsive_timeout: 5000 };
  assert.equal(decideHealthAction({ ...base, config: cfg, now: 15000 }), null, 'exactly the timeout is not over it');
  assert.equal(decideHealthAction({ ...base, config: cfg, now: 15001 }).action, 'kill');
  assert.equal(decideHealthAction({ ...base, config: cfg, now: 60000, unansweredSince: null }), null, 'every ping answered: however long since the last report');
  assert.equal(decideHealthAction({ ...base, config: cfg, now: 60000, hasAgent: false }), null, 'no agent, no judgement');
  assert.equal(decideHealthAction({ ...base, config: { ...cfg, unresponsive_timeout: 100 }, now: 12900 }), null, 'at least 3 intervals');
  assert.equal(decideHealthAction({ ...base, config: cfg, interval: 0, now: 60000 }), null, 'metrics off');
});

test('Ring keeps the newest points, oldest first', () => {
  const r = new Ring(3);
  assert.deepEqual(r.toArray(), []);
  for (const v of [1, 2, 3, 4, undefined]) r.push(v);
  assert.deepEqual(r.toArray(), [3, 4, null]);
});

test('a loop spike between two samples is kept for the next sample', () => {
  const rec = new WorkerRecord(/** @type {any} a WorkerProcess's fields the record reads */ ({ pid: 1, appName: 'a', slotIndex: 0 }));
  const report = (p99, max) => rec.onReport({ loop: { p50: 0.1, p99, max, mean: 0.1 } }, 1000);
  report(1, 2);
  report(300, 300);
  report(1, 1);
  rec.onSample({ cpu: 1, memory: 1, processes: 1 }, 1100);
  assert.deepEqual(rec.toJSON(1100).loop_delay_ms, { p50: 0.1, p99: 300, max: 300, mean: 0.1 });
  assert.deepEqual(rec.toJSON(1100, { history: true }).history.loop_p99_ms, [300]);
  report(1, 1);
  rec.onSample({ cpu: 1, memory: 1, processes: 1 }, 2100);
  assert.equal(rec.toJSON(2100).loop_delay_ms.max, 1, 'gone after the next sample');
});

test('autoscale\'s figures weigh each report by the time it covers: a few ms asked by `ls` do not read as a busy second', () => {
  const rec = new WorkerRecord(/** @type {any} a WorkerProcess's fields the record reads */ ({ pid: 1, appName: 'a', slotIndex: 0 }));
  assert.equal(rec.takeScaleFigures(), null, 'no report yet');
  rec.onReport({ elu: 0.1, ms: 990, loop: { p99: 5, max: 9 }, http: { inflight: 0.2 } });
  rec.onReport({ elu: 1, ms: 10, loop: { p99: 12, max: 12 }, http: { inflight: 1 } }); // an ask right after, one request served
  assert.deepEqual(rec.takeScaleFigures(), { elu: 0.109, loop_delay: 12, inflight: 0.208, shed: 0 });
  assert.deepEqual(rec.takeScaleFigures(), { elu: 0.109, loop_delay: 12, inflight: 0.208, shed: 0 }, 'no report since: the same figures');
  rec.onReport({ elu: 0.5, ms: 1000, loop: { p99: 3, max: 4 }, http: {} });
  assert.deepEqual(rec.takeScaleFigures(), { elu: 0.5, loop_delay: 3, inflight: null, shed: 0 });
});

test('sparkline scales to the largest value (or the floor) and pads', () => {
  assert.equal(sparkline([0, 5, 10], 3), '▁▅█');
  assert.equal(sparkline([1, 1], 4, 8), '  ▂▂');
  assert.equal(sparkline([null, 0], 2), ' ▁');
});

test('keys: arrows, j/k, q, Ctrl-C, several keys in one read', () => {
  assert.deepEqual(parseKeys('\x1b[A\x1b[Bjkq\x03r'), ['up', 'down', 'down', 'up', 'quit', 'quit', 'reload']);
  assert.deepEqual(parseKeys('\x1bOA\x1b'), ['up', 'escape']);
  assert.deepEqual(parseKeys('x'), ['other']);
});

test('frame: exactly the terminal size, the selected worker detailed, nothing wider than the screen', () => {
  const model = new MonitModel();
  model.daemon = { pid: 42 };
  const worker = (slot, pid) => ({ slot, pid, status: 'online', restarts: 0, uptime_ms: 5000, metrics: { cpu: 1.5, memory: 50 * M, processes: 1, heap_used: 5 * M, heap_total: 8 * M, loop_delay_ms: { p50: 0.1, p99: 2.5, max: 3, mean: 0.2 }, elu: 0.01, resources: { Timeout: 1 }, http_rps: 3, http_p99_ms: 1.2, report_age_ms: 100, history: { cpu: [1, 2], loop_p99_ms: [1, 300] } } });
  model.setSnapshot({ apps: [{ name: 'web', status: 'online', workers: [worker(0, 100), worker(1, 101)] }] });
  model.move(1);
  model.addLog('web', 'hello from web');
  for (const [cols, rows] of [[120, 30], [60, 12], [30, 5]]) {
    const lines = renderFrame(model, { cols, rows, color: false, now: 0 });
    assert.equal(lines.length, rows);
    assert.ok(lines.every((l) => l.length <= cols), `no line wider than ${cols}`);
  }
  const text = renderFrame(model, { cols: 120, rows: 30, color: false, now: 0 }).join('\n');
  assert.match(text, /── web#1 pid 101 online/);
  assert.match(text, /^web\s+1\s+101\s+online\s+1\.5%\s+50\.0M\s+5\.0M\/8\.0M\s+2\.5ms\s+3\s+0\s+5s/m);
  assert.match(text, /loop\s+.*█.*p99 2\.5ms/);
  assert.match(text, /hello from web/);
});
