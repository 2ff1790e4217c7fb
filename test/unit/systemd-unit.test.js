// renderUnit's systemd-version branch: exponential restart backoff (RestartSteps=,
// RestartMaxDelaySec=) only for systemd >= 254, which older ones would warn about.
// (test/prod/systemd.test.js verifies the unit of the systemd installed here.)
import test from 'node:test';
import assert from 'node:assert/strict';
import { renderUnit, BACKOFF_SINCE, OOM_SCORE_ADJUST } from '../../lib/ctl/systemd-unit.js';
import { DAEMON_ADJ } from '../../lib/master/process/oom-score.js';

const render = (systemdVersion) => renderUnit({
  user: false, username: 'app', group: 'app', home: '/home/app/.super', path: '/usr/bin:/bin', cwd: '/home/app',
  node: '/usr/bin/node', maxKillTimeout: 31600, systemdVersion,
});
/** Every value of `key` in the unit (comments left out). */
const values = (unit, key) => [...unit.matchAll(new RegExp(`^${key}=(.*)$`, 'gm'))].map((m) => m[1]);

test(`systemd >= ${BACKOFF_SINCE}: 1 s growing to 2 min over 10 restarts, give up after 20 failures in 30 min`, () => {
  assert.equal(BACKOFF_SINCE, 254);
  for (const v of [254, 257]) {
    const unit = render(v);
    assert.deepEqual(values(unit, 'RestartSec'), ['1s'], `systemd ${v}`);
    assert.deepEqual(values(unit, 'RestartSteps'), ['10']);
    assert.deepEqual(values(unit, 'RestartMaxDelaySec'), ['2min']);
    assert.deepEqual(values(unit, 'StartLimitBurst'), ['20']);
    assert.deepEqual(values(unit, 'StartLimitIntervalSec'), ['30min']);
    assert.match(unit, /^# Restart backoff, part 1: give up after 20 failed starts within 30min\.$/m);
    assert.match(unit, /^# Restart backoff, part 2: the delay grows from 1s to 2min over 10 restarts\.$/m);
    assert.deepEqual(values(unit, 'TimeoutStopSec'), ['42s'], 'ceil(31.6 s) + 10 s');
    assert.doesNotMatch(unit, /\{\{/, 'every placeholder filled');
  }
});

test('older or unknown systemd: a fixed 5 s, give up after 10 failures in 10 min, no directive it lacks', () => {
  for (const v of [253, 252, null]) {
    const unit = render(v);
    assert.deepEqual(values(unit, 'RestartSec'), ['5s'], `systemd ${v}`);
    assert.deepEqual(values(unit, 'RestartSteps'), []);
    assert.deepEqual(values(unit, 'RestartMaxDelaySec'), []);
    assert.deepEqual(values(unit, 'StartLimitBurst'), ['10']);
    assert.deepEqual(values(unit, 'StartLimitIntervalSec'), ['10min']);
    assert.match(unit, new RegExp(`^# Restart backoff, part 2: 5s between restarts \\(RestartSteps= needs systemd 254; this one is ${v ?? 'unknown'}\\)\\.$`, 'm'));
  }
});

test('a system unit lowers the daemon\'s OOMScoreAdjust= to the daemon\'s own value; a --user unit cannot, and says so', () => {
  assert.equal(OOM_SCORE_ADJUST, DAEMON_ADJ);
  assert.deepEqual(values(render(257), 'OOMScoreAdjust'), ['-900']);
  const user = renderUnit({ user: true, username: 'app', group: 'app', home: '/h', path: '/bin', cwd: '/', node: '/usr/bin/node', maxKillTimeout: 1000, systemdVersion: 257 });
  assert.deepEqual(values(user, 'OOMScoreAdjust'), []);
  assert.match(user, /^# \(no OOMScoreAdjust=: a user manager cannot lower it\)$/m);
});
