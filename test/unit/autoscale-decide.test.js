// The autoscale decision (lib/master/autoscale/decide.js): when an app adds a worker,
// retires one, or waits, from its workers' figures over time.
import test from 'node:test';
import assert from 'node:assert/strict';
import { decideScale, freshState } from '../../lib/master/autoscale/decide.js';

const rule = (r) => ({ elu: null, loop_delay: null, inflight: null, ...r });
const settings = {
  min: 1,
  max: 3,
  up: rule({ elu: 0.8, loop_delay: 100, for: 10_000 }),
  down: rule({ elu: 0.3, for: 60_000 }),
  cooldown: 30_000,
};
const fig = (elu, extra = {}) => ({ elu, loop_delay: 5, inflight: 1, ...extra });

/**
 * Feeds figures once a second from `from` to `to` (s): `figures` is a list (the same each
 * second) or a function of the second. Returns the first step, when (s), and the state.
 */
function run(figures, { from = 60, to = 200, state = freshState(0), idle = true, s = settings } = {}) {
  for (let t = from; t <= to; t++) {
    const r = decideScale({ settings: s, figures: typeof figures === 'function' ? figures(t) : figures, state, now: t * 1000, idle });
    state = r.state;
    if (r.step) return { ...r, at: t };
  }
  return { state, step: null, at: null };
}

test('up: every worker over a bound on average over up.for, then one more worker', () => {
  const r = run([fig(0.9), fig(0.85)]);
  assert.equal(r.at, 70); // samples since 60 s, reaching back 10 s at 70 s
  assert.deepEqual({ ...r.step, reason: undefined }, { to: 3, direction: 'up', reason: undefined, figures: { elu: 0.88, loop_delay: 5, inflight: 1 } });
  assert.equal(r.step.reason, 'every worker over elu 0.8 on average for 10 s');
  // any one bound is enough: a late loop with a low ELU
  assert.match(run([fig(0.2, { loop_delay: 150 }), fig(0.9, { loop_delay: 120 })]).step.reason, /^every worker over loop_delay 100 ms on average/);
});

test('no step while one worker is under the up bounds, at max, held by another operation, or cooling down', () => {
  assert.equal(run([fig(0.9), fig(0.5)]).step, null);
  assert.equal(run([fig(0.9), fig(0.9), fig(0.9)]).step, null, 'max 3');
  assert.equal(run([fig(0.9), fig(0.9)], { idle: false }).step, null, 'another operation holds the app');
  // the last step at 100 s: busy since 60 s, but the samples count from the step, and the cooldown runs
  assert.equal(run([fig(0.9), fig(0.9)], { state: freshState(100_000) }).at, 130);
  assert.equal(run([fig(0.9), fig(0.9)], { state: freshState(100_000), s: { ...settings, cooldown: 0 } }).at, 111);
});

test('averages: a dip under the up bound does not start the wait again; a worker without figures adds no sample', () => {
  // 0.9 each second but one at 0.5: the mean over 10 s stays over 0.8
  assert.equal(run((t) => [fig(t === 65 ? 0.5 : 0.9)]).at, 70);
  // two dips in 10 s bring the mean under 0.8 until they leave the window
  assert.equal(run((t) => [fig(t === 65 || t === 66 ? 0.3 : 0.9)]).at, 75);
  // a starting worker (no figures) decides nothing and breaks nothing
  let state = freshState(0);
  for (let t = 60; t < 75; t++) {
    const r = decideScale({ settings, figures: t < 64 ? [fig(0.9)] : [fig(0.9), null], state, now: t * 1000, idle: true });
    state = r.state;
    assert.equal(r.step, null, `at ${t} s`);
  }
  assert.equal(state.samples.length, 4, 'the samples of 60-63 s only');
  assert.equal(run([fig(0.9)], { from: 75, state }).at, 75, 'they reach back 10 s at 75 s: the mean of what was seen');
});

test('down: the busiest worker under every down bound in every sample of down.for, and the rest would stay under the up bounds', () => {
  const r = run([fig(0.1), fig(0.2), fig(0.25)]);
  assert.equal(r.at, 120);
  assert.equal(r.step.to, 2);
  assert.equal(r.step.reason, 'every worker under elu 0.3 for 60 s');
  assert.equal(run([fig(0.1)]).step, null, 'min 1');
  assert.equal(run([fig(0.1), fig(0.4)]).step, null, 'one worker over the down bound');
  assert.equal(run((t) => [fig(0.1), fig(t === 100 ? 0.9 : 0.2)]).at, 160, 'one busy second holds the step down off for down.for');
  // Two workers at 0.29 would be one at 0.58: fine. With up at 0.5, one would be over it.
  const lowUp = { ...settings, up: rule({ elu: 0.5, for: 10_000 }), down: rule({ elu: 0.3, for: 60_000 }) };
  assert.equal(run([fig(0.29), fig(0.29)], { s: lowUp }).step, null, 'the one left would scale back up');
  assert.equal(run([fig(0.2), fig(0.2)], { s: lowUp }).step?.to, 1);
  // in-flight requests are shared out too; a figure a worker does not report fails a down bound
  const byInflight = { ...settings, up: rule({ inflight: 10, for: 1000 }), down: rule({ inflight: 6, for: 1000 }) };
  const inflight = (...n) => n.map((i) => fig(0.1, { inflight: i }));
  assert.equal(run(inflight(4, 4, 4), { s: byInflight }).step?.to, 2, '12 on two workers: 6 each');
  assert.equal(run(inflight(6, 6), { s: byInflight }).step, null, '12 on one worker would be over 10');
  assert.equal(run(inflight(4, 4), { s: byInflight }).step?.to, 1);
  assert.equal(run(inflight(null, 4), { s: byInflight }).step, null);
});

test('down, samples closer than a second: judged per second, so a busy quarter second does not hold a step off, a busy second does', () => {
  // Four samples a second (an app's metrics_interval: 250ms), each 0-10 ms late, from 60 s.
  const feed = (busy) => {
    let state = freshState(0);
    for (let q = 240; q <= 1000; q++) {
      const now = q * 250 + ((q * 7) % 11);
      const r = decideScale({ settings, figures: [fig(0.1), fig(busy(q) ? 0.45 : 0.1)], state, now, idle: true });
      state = r.state;
      if (r.step) return now / 1000;
    }
    return null;
  };
  // A quarter second over the down bound every 10 s (its second's mean: 0.19): down after down.for.
  assert.equal(Math.floor(feed((q) => q % 40 === 0)), 120);
  // A whole second over it, at 100 s: the wait starts again from there.
  assert.equal(Math.floor(feed((q) => q >= 400 && q < 404)), 161);
});

test('samples at uneven times (a real timer): the window fills, up and down', () => {
  // one sample a second, each up to 30 ms late: never exactly `for` apart
  const at = (t) => t * 1000 + ((t * 7) % 31);
  const feed = (figures, from, to, state) => {
    for (let t = from; t <= to; t++) {
      const r = decideScale({ settings, figures, state, now: at(t), idle: true });
      state = r.state;
      if (r.step) return { step: r.step, t };
    }
    return { step: null, t: null, state };
  };
  // the first sample at 60 s: a window of 10 s (60 s) is full at 70 or 71 s (130 s or 131 s)
  assert.ok([70, 71].includes(feed([fig(0.9)], 60, 200, freshState(0)).t));
  assert.ok([120, 121].includes(feed([fig(0.1), fig(0.1)], 60, 200, freshState(0)).t));
});

test('the window is bounded: a long `for` at a short interval keeps at most 4096 samples', () => {
  const long = { ...settings, up: rule({ elu: 0.8, for: 3_600_000 }), down: rule({ elu: 0.3, for: 3_600_000 }) };
  let state = freshState(0);
  for (let t = 1; t <= 20_000; t++) state = decideScale({ settings: long, figures: [fig(0.5)], state, now: t * 100, idle: true }).state;
  assert.ok(state.samples.length <= 4096, `${state.samples.length} samples`);
});

test('a worker that sheds reads as at its up bounds: shedding does not hide the load, and holds a step down off', () => {
  // Shedding keeps the ELU low (0.4): the shed requests are the load past capacity.
  const shedding = fig(0.4, { shed: 120 });
  const r = run([shedding]);
  assert.equal(r.at, 70);
  assert.equal(r.step.direction, 'up');
  assert.equal(r.step.to, 2);
  // without shedding, the same figures add nothing
  assert.equal(run([fig(0.4, { shed: 0 })]).step, null);
  // two workers, one of them shedding at a low ELU: no step down
  assert.equal(run([fig(0.1), fig(0.1, { shed: 3 })], { to: 400, s: { ...settings, max: 2 } }).step, null);
  assert.equal(run([fig(0.1), fig(0.1, { shed: 0 })], { to: 400, s: { ...settings, max: 2 } }).step?.direction, 'down');
});
