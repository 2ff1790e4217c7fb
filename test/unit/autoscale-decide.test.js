// The autoscale decision (lib/master/autoscale/decide.js): when an app adds a worker,
// retires one, or waits, from its workers' figures over time.
import test from 'node:test';
import assert from 'node:assert/strict';
import { decideScale } from '../../lib/master/autoscale/decide.js';

const rule = (r) => ({ elu: null, loop_delay: null, inflight: null, ...r });
const settings = {
  min: 1,
  max: 3,
  up: rule({ elu: 0.8, loop_delay: 100, for: 10_000 }),
  down: rule({ elu: 0.3, for: 60_000 }),
  cooldown: 30_000,
};
const fig = (elu, extra = {}) => ({ elu, loop_delay: 5, inflight: 1, ...extra });
const fresh = () => ({ upSince: null, downSince: null, lastAt: 0 });

/** Feeds the same figures once a second from `from` to `to` (s); returns the first step and the state. */
function run(figures, { from = 60, to = 200, state = fresh(), idle = true, s = settings } = {}) {
  for (let t = from; t <= to; t++) {
    const r = decideScale({ settings: s, figures, state, now: t * 1000, idle });
    state = r.state;
    if (r.step) return { ...r, at: t };
  }
  return { state, step: null, at: null };
}

test('up: every worker over a bound for up.for, then one more worker', () => {
  const r = run([fig(0.9), fig(0.85)]);
  assert.equal(r.at, 70); // over since 60 s, for 10 s
  assert.deepEqual({ ...r.step, reason: undefined }, { to: 3, direction: 'up', reason: undefined, figures: { elu: 0.88, loop_delay: 5, inflight: 1 } });
  assert.match(r.step.reason, /^every worker over elu 0\.8 or loop_delay 100 ms for 10 s$/);
  // any one bound is enough: a late loop with a low ELU
  assert.equal(run([fig(0.2, { loop_delay: 150 }), fig(0.9)]).at, 70);
});

test('no step while one worker is under the up bounds, at max, idle not, or cooling down', () => {
  assert.equal(run([fig(0.9), fig(0.5)]).step, null);
  assert.equal(run([fig(0.9), fig(0.9), fig(0.9)]).step, null, 'max 3');
  assert.equal(run([fig(0.9), fig(0.9)], { idle: false }).step, null, 'another operation holds the app');
  // the last step at 100 s: over since 60 s, but the first step waits out the cooldown
  assert.equal(run([fig(0.9), fig(0.9)], { state: { upSince: null, downSince: null, lastAt: 100_000 } }).at, 130);
});

test('a break in the condition starts its timer again; a worker without figures decides nothing and breaks nothing', () => {
  let state = fresh();
  const at = (t, figures) => {
    const r = decideScale({ settings, figures, state, now: t * 1000, idle: true });
    state = r.state;
    return r.step;
  };
  for (let t = 60; t < 68; t++) assert.equal(at(t, [fig(0.9)]), null);
  assert.equal(at(68, [fig(0.5)]), null); // a break
  for (let t = 69; t < 79; t++) assert.equal(at(t, [fig(0.9)]), null);
  assert.equal(at(79, [fig(0.9)])?.to, 2, 'over again for 10 s since 69 s');
  state = fresh();
  for (let t = 60; t < 65; t++) at(t, [fig(0.9)]);
  for (let t = 65; t < 75; t++) assert.equal(at(t, [fig(0.9), null]), null, 'a starting worker: no step');
  assert.equal(state.upSince, 60_000, 'and the timer kept');
  assert.equal(at(75, [fig(0.9)])?.to, 2);
});

test('down: every worker under every down bound for down.for, and the rest would stay under the up bounds', () => {
  const r = run([fig(0.1), fig(0.2), fig(0.25)]);
  assert.equal(r.at, 120);
  assert.equal(r.step.to, 2);
  assert.match(r.step.reason, /^every worker under elu 0\.3 for 60 s$/);
  assert.equal(run([fig(0.1)]).step, null, 'min 1');
  assert.equal(run([fig(0.1), fig(0.4)]).step, null, 'one worker over the down bound');
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
