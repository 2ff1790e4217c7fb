import test from 'node:test';
import assert from 'node:assert/strict';
import { decideRestart, freshHistory, BACKOFF_CAP_MS } from '../../lib/master/apps/restart-policy.js';

// restart_delay_set: false is a file that sets neither delay (the built-in backoff applies).
const app = (o = {}) => ({ autorestart: true, stop_exit_codes: [], min_uptime: 1000, max_restarts: 3, restart_delay: 0, exp_backoff_restart_delay: 0, restart_delay_set: false, ...o });
/** The delays of `count` unstable exits in a row. */
function unstableDelays(a, count, uptime = 10) {
  let h = freshHistory();
  const out = [];
  for (let i = 0; i < count; i++) {
    const d = decideRestart(a, h, crash(uptime));
    out.push(d.delay);
    h = d.history;
  }
  return out;
}
const crash = (uptime, code = 1, signal = null) => ({ code, signal, uptime });

test('a stable worker that exits restarts at once, history reset', () => {
  const d = decideRestart(app(), { unstable: 2, backoff: 0 }, crash(5000));
  assert.deepEqual(d, { action: 'restart', delay: 0, history: { unstable: 0, backoff: 0 }, reason: 'exited with code 1' });
});

test('restart_delay spaces restarts', () => {
  assert.equal(decideRestart(app({ restart_delay: 250, restart_delay_set: true }), freshHistory(), crash(5000)).delay, 250);
});

test('built-in backoff when no delay is set: 0 for a lone crash, then 100 ms x2, capped at 2 s', () => {
  assert.deepEqual(unstableDelays(app({ max_restarts: 100 }), 9), [0, 100, 200, 400, 800, 1600, 2000, 2000, 2000]);
});

test('built-in backoff: a stable exit restarts at once and starts the count again', () => {
  const a = app({ max_restarts: 100 });
  const looping = { unstable: 5, backoff: 0 };
  assert.deepEqual(decideRestart(a, looping, crash(5000)), { action: 'restart', delay: 0, history: { unstable: 0, backoff: 0 }, reason: 'exited with code 1' });
  assert.equal(decideRestart(a, { unstable: 0, backoff: 0 }, crash(10)).delay, 0, 'the next crash is again a lone one');
});

test('built-in backoff is off once the file sets a delay, even 0', () => {
  assert.deepEqual(unstableDelays(app({ max_restarts: 100, restart_delay_set: true }), 5), [0, 0, 0, 0, 0], 'explicit restart_delay: 0');
  assert.deepEqual(unstableDelays(app({ max_restarts: 100, restart_delay: 50, restart_delay_set: true }), 3), [50, 50, 50]);
  assert.deepEqual(unstableDelays(app({ max_restarts: 100, exp_backoff_restart_delay: 100, restart_delay_set: true }), 3), [100, 150, 225]);
});

test('unstable exits count up; one more than max_restarts is errored', () => {
  let h = freshHistory();
  for (let i = 1; i <= 3; i++) {
    const d = decideRestart(app(), h, crash(10));
    assert.equal(d.action, 'restart', `exit ${i}`);
    assert.equal(d.history.unstable, i);
    h = d.history;
  }
  const d = decideRestart(app(), h, crash(10));
  assert.equal(d.action, 'errored');
  assert.match(d.reason, /4 times in a row.*min_uptime \(1000 ms\).*max_restarts is 3/);
});

test('max_restarts 0 errors on the first unstable exit', () => {
  assert.equal(decideRestart(app({ max_restarts: 0 }), freshHistory(), crash(10)).action, 'errored');
});

test('autorestart false stops, whatever the exit', () => {
  const d = decideRestart(app({ autorestart: false }), freshHistory(), crash(10, null, 'SIGKILL'));
  assert.deepEqual(d, { action: 'stop', reason: 'exited with signal SIGKILL; autorestart is off' });
});

test('stop_exit_codes stop on a listed code only, never on a signal', () => {
  const a = app({ stop_exit_codes: [0, 42] });
  assert.equal(decideRestart(a, freshHistory(), crash(5000, 42)).action, 'stop');
  assert.equal(decideRestart(a, freshHistory(), crash(5000, 0)).action, 'stop');
  assert.equal(decideRestart(a, freshHistory(), crash(5000, 1)).action, 'restart');
  assert.equal(decideRestart(a, freshHistory(), crash(5000, null, 'SIGTERM')).action, 'restart');
});

test('exponential backoff: starts at the base, x1.5, capped at 15 s, reset after 30 s up', () => {
  const a = app({ exp_backoff_restart_delay: 100, max_restarts: 1000, restart_delay_set: true });
  let h = freshHistory();
  const delays = [];
  for (let i = 0; i < 16; i++) {
    const d = decideRestart(a, h, crash(2000));
    delays.push(d.delay);
    h = d.history;
  }
  assert.deepEqual(delays.slice(0, 5), [100, 150, 225, 338, 507]);
  assert.equal(delays.at(-1), BACKOFF_CAP_MS, 'grows to the cap');
  assert.ok(delays.every((d, i) => i === 0 || d >= delays[i - 1]), 'never shrinks while unstable');
  const big = { unstable: 0, backoff: 14000 };
  assert.equal(decideRestart(a, big, crash(2000)).delay, BACKOFF_CAP_MS);
  assert.equal(decideRestart(a, big, crash(31000)).delay, 100, 'reset after 30 s of uptime');
});

test('a process that could not be spawned is an unstable exit that says why', () => {
  const d = decideRestart(app(), freshHistory(), { code: null, signal: null, error: 'spawn /usr/bin/setsid EAGAIN', uptime: 0 });
  assert.deepEqual(d, { action: 'restart', delay: 0, history: { unstable: 1, backoff: 0 }, reason: 'could not start (spawn /usr/bin/setsid EAGAIN)' });
});
