// Issue 37: the monit log pane's read-back lines of a failed earlier start end at a line
// saying when the app's current workers started (the daemon's `earlier` count, checked as
// untrusted input).
import test from 'node:test';
import assert from 'node:assert/strict';
import { MonitModel } from '../../lib/ctl/monit/model.js';
import { addTail } from '../../lib/ctl/monit/dashboard.js';

const started = new Date(2026, 0, 31, 12, 34, 56).getTime();
const file = { app: 'web', slot: null, stream: 'err', path: '/x/web-err.log', lines: ['Error: listen EADDRINUSE', '  at x', 'up'] };

test('monit: lines written before the current workers started come before a "workers started" line', () => {
  const model = new MonitModel();
  addTail(model, { ...file, earlier: 2, started });
  assert.deepEqual(model.logs.get('web'), ['! Error: listen EADDRINUSE', '!   at x', '── workers started 12:34:56 (this run) ──', '! up']);
});

test('monit: no such line when none is earlier, or the daemon says nonsense', () => {
  for (const extra of [{}, { earlier: 0, started }, { earlier: '2', started }, { earlier: 2, started: 'x' }, { earlier: 1.5, started }]) {
    const model = new MonitModel();
    addTail(model, { ...file, ...extra });
    assert.deepEqual(model.logs.get('web'), ['! Error: listen EADDRINUSE', '!   at x', '! up'], JSON.stringify(extra));
  }
});
