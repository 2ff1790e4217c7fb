// The daemon's hard stop deadline follows the slowest worker's drain_timeout + kill_timeout
// (it was a fixed 120 s, which systemd's TimeoutStopSec could outlast).
import test from 'node:test';
import assert from 'node:assert/strict';
import { stopDeadline, STOP_MARGIN_MS } from '../../lib/master/apps/stop-deadline.js';

const app = (drain, kill, slotConfigs = []) => ({
  config: { drain_timeout: drain, kill_timeout: kill },
  slots: [{ config: null }, ...slotConfigs.map(([d, k]) => ({ config: { drain_timeout: d, kill_timeout: k } }))],
});

test('the slowest app sets the deadline, plus the margin', () => {
  assert.equal(stopDeadline([app(10000, 1600), app(60000, 120000), app(0, 500)]), 180000 + STOP_MARGIN_MS);
  assert.ok(stopDeadline([app(60000, 120000)]) > 120000, 'beyond the old fixed 120 s');
  assert.equal(stopDeadline([app(10000, 1600)], 1000), 12600);
});

test('a slot still running an older, slower config counts (mid-reload)', () => {
  assert.equal(stopDeadline([app(1000, 1000, [[1000, 1000], [30000, 5000]])], 0), 35000);
});

test('no apps: the margin alone; a huge kill_timeout stays a valid timer', () => {
  assert.equal(stopDeadline([]), STOP_MARGIN_MS);
  assert.equal(stopDeadline(new Map().values()), STOP_MARGIN_MS);
  assert.equal(stopDeadline([app(0, 30 * 24 * 3600 * 1000)]), 2 ** 31 - 1);
});

test('shutdown_delay (the lame duck before the drain) counts in a worker\'s stop', () => {
  const slow = { config: { shutdown_delay: 5000, drain_timeout: 10000, kill_timeout: 1600 }, slots: [] };
  assert.equal(stopDeadline([slow], 0), 16600);
});
