// Issue 14 item 3: an app floods the daemon with the agent's own log-write reports
// (super:log-error / super:log-resumed, a new errno code each time). Each is the daemon's
// to log, so each worker gets a bounded number of lines per minute, then one
// "suppressed N" line: daemon.log stays small and the daemon keeps answering.
import test from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { sandbox, watchEvents } from '../helpers/harness.js';
import { waitForLog } from '../helpers/metrics.js';

test('a flood of log-error / log-resumed reports logs a bounded number of lines, then "suppressed N"', { timeout: 60000 }, async (t) => {
  const box = await sandbox(t);
  box.fixture('log-report-flood.cjs');
  box.fixture('idle.js');
  // An idle app first: the event stream needs a daemon to connect to before the flood starts.
  assert.equal((await box.cli(['start', box.write('idle.yml', 'apps:\n  - name: idle\n    script: idle.js\n    ready_on: spawn\n')])).code, 0);
  const eco = box.write('eco.yml', 'apps:\n  - name: flood\n    script: log-report-flood.cjs\n    ready_on: spawn\n    env: { FLOOD_COUNT: "2000" }\n');
  const events = await watchEvents(box, t, ['log']);
  const done = events.waitFor((e) => e.app === 'flood' && /flood done \d+/.test(e.text ?? ''), 50000, 'the flood to end');
  assert.equal((await box.cli(['start', eco])).code, 0);
  const sent = Number(/flood done (\d+)/.exec((await done).text)[1]);
  assert.equal((await box.cli(['ping'])).code, 0, 'the daemon answers');
  const lines = fs.readFileSync(path.join(box.home, 'daemon.log'), 'utf8').split('\n');
  const reports = lines.filter((l) => /log write failed|log writing resumed/.test(l));
  t.diagnostic(`${sent} reports sent; daemon.log: ${lines.length} lines, ${reports.length} of them reports`);
  assert.equal(sent, 2000, 'a flood: 2,000 reports (the bound is 10 lines a minute)');
  assert.ok(reports.length <= 20, `at most 20 report lines for one worker (got ${reports.length})`);
  assert.ok(lines.length < 100, `daemon.log stays small: ${lines.length} lines`);
  // The count of what was held back is said once the window of the rate closes (60 s), or
  // when the worker exits: the stop. The daemon writes its log off its loop, one write at a
  // time (lib/logs/daemon-log.js): the line may reach the file after the stop's answer.
  assert.equal((await box.cli(['stop', 'flood'])).code, 0);
  const text = await waitForLog(box, /"suppressed":\d+/, 15000);
  const suppressed = text.match(/"suppressed":(\d+)/g);
  assert.equal(suppressed.length, 1, `one line says how many reports were suppressed: ${suppressed}`);
  assert.ok(Number(suppressed[0].split(':')[1]) > 0, suppressed[0]);
});
