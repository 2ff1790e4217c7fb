// The autoscaler's pace (lib/master/autoscale/autoscaler.js): an app decides once every one
// of its workers has reported since its last decision (at least half a report interval
// apart), not on the daemon's sample clock; the sample only keeps the list of apps.
// The autoscaler is driven here through its own interface, with the registry's view and
// the workers' figures given as plain data.
import test from 'node:test';
import assert from 'node:assert/strict';
import { Autoscaler } from '../../lib/master/autoscale/autoscaler.js';
import { createJsonLogger } from '../../lib/logs/json-logger.js';

const rule = (r) => ({ elu: null, loop_delay: null, inflight: null, ...r });
const SETTINGS = { min: 1, max: 3, up: rule({ elu: 0.8, for: 0 }), down: rule({ elu: 0.1, for: 60_000 }), cooldown: 0 };

/** One autoscaled app `web` whose workers have `pids`, all busy (elu 0.9), every report fresh. */
function setup(pids) {
  const app = { name: 'web', autoscale: SETTINGS, busy: null, running: true, lastReloadAt: 0, workers: [] };
  let reads = 0; // autoscaledApp() calls: a walk over the app's workers
  const setPids = (list) => (app.workers = list.map((pid) => ({ pid, state: 'online', ready: true })));
  setPids(pids);
  const reader = {
    autoscaled: () => [app],
    autoscaledApp: (name) => (reads++, name === 'web' ? app : null),
    workerCount: (name) => (name === 'web' ? app.workers.length : 0),
  };
  const steps = [];
  const asked = [];
  const log = createJsonLogger({ write: () => {}, flush: (cb) => cb() }, {});
  const scaler = new Autoscaler({
    reader,
    figures: (pid) => (asked.push(pid), { elu: 0.9, loop_delay: 1, inflight: 0 }),
    fresh: () => true,
    // Never ends: one step is enough to see, and a second one would wait for it.
    step: (name, step) => (steps.push({ name, ...step }), new Promise(() => {})),
    log,
  });
  return { scaler, steps, asked, setPids, reads: () => reads };
}

test('an app decides once all its workers have reported since its last decision', () => {
  const { scaler, steps, asked } = setup([11, 12]);
  scaler.report('web', 11, 1000, 1000);
  assert.deepEqual(asked, [], 'an app no sample has listed yet decides nothing');
  scaler.tick(1000);
  assert.deepEqual([asked, steps], [[], []], 'the sample itself decides nothing');
  scaler.report('web', 11, 1100, 1000);
  scaler.report('web', 11, 1200, 1000); // the same worker again: still one of two
  assert.deepEqual(asked, []);
  scaler.report('web', 12, 1300, 1000);
  assert.deepEqual(asked, [11, 12], 'both workers\' figures, once the round is complete');
  assert.equal(steps.length, 1);
  assert.deepEqual([steps[0].direction, steps[0].from, steps[0].to], ['up', 2, 3]);
  scaler.report('web', 13, 1400, 1000); // a worker of another app, or none: nothing
  scaler.report('api', 11, 1400, 1000);
  assert.equal(steps.length, 1);
});

test('rounds at least half a report interval apart: reports asked by ls or a scrape in between do not make one', () => {
  const { scaler, asked } = setup([11]);
  scaler.tick(0);
  scaler.report('web', 11, 10_000, 1000);
  assert.deepEqual(asked, [11]);
  scaler.report('web', 11, 10_100, 1000); // an asked report, 100 ms later
  scaler.report('web', 11, 10_400, 1000);
  assert.deepEqual(asked, [11], 'no decision within half an interval of the last');
  scaler.report('web', 11, 10_500, 1000);
  assert.deepEqual(asked, [11, 11]);
});

test('a worker replaced between two rounds: its pid is dropped, and the round waits for its successor', () => {
  const { scaler, asked, setPids } = setup([11, 12]);
  scaler.tick(0);
  scaler.report('web', 11, 5000, 1000);
  setPids([21, 12]); // slot 0 restarted
  scaler.tick(5100);
  scaler.report('web', 12, 5200, 1000);
  assert.deepEqual(asked, [], 'the old pid does not stand for its successor');
  scaler.report('web', 21, 5300, 1000);
  assert.deepEqual(asked, [21, 12]);
});

test('a worker that floods reports costs a walk over the workers only for the report that completes a round', () => {
  const { scaler, asked, reads, setPids } = setup([11, 12, 13]);
  scaler.tick(0);
  for (let i = 0; i < 1000; i++) scaler.report('web', 11, 1000 + i, 1000);
  assert.deepEqual([asked, reads()], [[], 0], 'one worker of three: no round, no walk');
  setPids([21, 12, 13]); // slot 0 replaced, no sample since: its old pid counts toward the round
  scaler.report('web', 12, 2000, 1000);
  scaler.report('web', 13, 2001, 1000);
  assert.equal(reads(), 1, 'the old pid found out once');
  for (let i = 0; i < 1000; i++) scaler.report('web', 12, 2002 + i, 1000);
  assert.equal(reads(), 1);
  scaler.report('web', 21, 3100, 1000);
  assert.deepEqual([asked, reads()], [[21, 12, 13], 2]);
});
