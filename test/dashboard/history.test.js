// The dashboard's history (lib/dashboard/history.js): bounded per series and in series,
// oldest first, an app's point summed from its workers.
import test from 'node:test';
import assert from 'node:assert/strict';
import { Ring, HistoryStore, appPoint, workerPoint, seriesKey } from '../../lib/dashboard/history.js';

test('a ring keeps the last `size` items, oldest first', () => {
  const r = new Ring(3);
  assert.deepEqual(r.toArray(), []);
  for (let i = 1; i <= 2; i++) r.push(i);
  assert.deepEqual(r.toArray(), [1, 2]);
  for (let i = 3; i <= 7; i++) r.push(i);
  assert.deepEqual(r.toArray(), [5, 6, 7]);
  assert.equal(r.length, 3);
});

test('the store bounds its series: the one fed least recently goes first', () => {
  const h = new HistoryStore({ points: 2, maxSeries: 2 });
  h.add('a', [1]);
  h.add('b', [1]);
  h.add('a', [2]); // a fed again: b is now the oldest
  h.add('c', [1]);
  assert.deepEqual([...h.series.keys()], ['a', 'c']);
  h.add('a', [3]);
  assert.deepEqual(h.series.get('a').toArray(), [[2], [3]]);
});

const worker = (slot, pid, cpu, memory, p99, rps) => ({ slot, pid, metrics: { cpu, memory, loop_delay_ms: { p99 }, http_rps: rps, report_age_ms: 10, loop_stale: false } });

test('an app point sums CPU, memory and requests and keeps the worst loop delay', () => {
  const pts = [workerPoint(5, worker(0, 10, 10, 100, 3, 50)), workerPoint(5, worker(1, 11, 20, 200, 9, 70))];
  assert.deepEqual(appPoint(5, pts), [5, 30, 300, 9, 120]);
  // a stopped worker has no values; a stale report no loop delay or rate
  assert.deepEqual(workerPoint(5, { slot: 0, pid: null, metrics: null }), [5, null, null, null, null]);
  const stale = worker(0, 10, 1, 2, 3, 4);
  stale.metrics.loop_stale = true;
  assert.deepEqual(workerPoint(5, stale), [5, 1, 2, null, null]);
  assert.deepEqual(appPoint(5, [[5, null, null, null, null]]), [5, null, null, null, null]);
});

test('snapshots feed an app series and one per worker slot; dump gives one host', () => {
  const h = new HistoryStore();
  h.addSnapshot('h1', [{ name: 'api', workers: [worker(0, 10, 1, 2, 3, 4)] }], 100);
  h.addSnapshot('h1', [{ name: 'api', workers: [worker(0, 10, 5, 6, 7, 8)] }], 101);
  h.addSnapshot('h2', [{ name: 'api', workers: [] }], 101);
  // a page gets the app series when it opens, an app's worker series when it opens the app
  assert.deepEqual(h.dump('h1'), { api: [[100, 1, 2, 3, 4], [101, 5, 6, 7, 8]] });
  assert.deepEqual(h.dump('h1', 'api'), { 'api\u00000': [[100, 1, 2, 3, 4], [101, 5, 6, 7, 8]] });
  assert.deepEqual(h.dump('h1', 'ap'), {});
  assert.equal(seriesKey('h1', 'api', 0), 'h1\u0000api\u00000');
  // the daemon's own points seed a worker the dashboard has not seen, and only then
  h.seedWorker('h2', 'api', 0, { cpu: [1, 2], memory: [3, 4], loop_p99_ms: [5, 6] }, 200, 1);
  assert.deepEqual(h.dump('h2', 'api')['api\u00000'], [[198, 1, 3, 5, null], [199, 2, 4, 6, null]]);
  h.seedWorker('h2', 'api', 0, { cpu: [9] }, 300, 1);
  assert.equal(h.dump('h2', 'api')['api\u00000'].length, 2);
});

test('a host that goes away leaves a gap in each of its series, once, and in no other host\'s', () => {
  const h = new HistoryStore();
  h.add(seriesKey('a', 'web'), [100, 1, 2, 3, 4]);
  h.add(seriesKey('a', 'web', 0), [100, 1, 2, 3, 4]);
  h.add(seriesKey('b', 'web'), [100, 1, 2, 3, 4]);
  h.markGap('a', 100.2); // at the second of the last point: the gap goes one second after it
  h.markGap('a', 103); // still away: no second gap
  for (const key of [seriesKey('a', 'web'), seriesKey('a', 'web', 0)]) {
    assert.deepEqual(h.series.get(key).toArray(), [[100, 1, 2, 3, 4], [101, null, null, null, null]], key);
  }
  assert.deepEqual(h.series.get(seriesKey('b', 'web')).toArray(), [[100, 1, 2, 3, 4]]);
  h.add(seriesKey('a', 'web'), [105, 1, 2, 3, 4]); // back: the line goes on after the gap
  h.markGap('a', 110);
  assert.deepEqual(h.series.get(seriesKey('a', 'web')).toArray().at(-1), [110, null, null, null, null]);
});

test('a full ring\'s newest item is the last one pushed', () => {
  const r = new Ring(3);
  assert.equal(r.last(), undefined);
  for (let i = 1; i <= 5; i++) r.push(i);
  assert.equal(r.last(), 5);
});
