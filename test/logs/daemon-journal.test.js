// Issue 16: under systemd the daemon's own log goes to the journal. The generated unit runs
// `super daemon --log-to stderr` with SyslogIdentifier=superd; the daemon then writes its
// events to stderr (each line prefixed with its syslog priority when stderr is the journal,
// JOURNAL_STREAM set) and no daemon.log.
import test from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { sandbox } from '../helpers/harness.js';
import { superProcess } from '../helpers/super-process.js';
import { renderUnit } from '../../lib/ctl/systemd-unit.js';

test('the unit logs the daemon to the journal: ExecStart --log-to stderr, SyslogIdentifier', () => {
  const unit = renderUnit({
    user: false, username: 'app', group: 'app', home: '/home/app/.super', path: '/usr/bin:/bin', cwd: '/home/app',
    node: '/usr/bin/node', maxKillTimeout: 5000, systemdVersion: 255,
  });
  assert.match(unit, /^ExecStart=\/usr\/bin\/node \S+super\.js daemon --foreground --resurrect --log-to stderr$/m);
  assert.match(unit, /^SyslogIdentifier=superd$/m);
});

test('super daemon --log-to stderr: the daemon\'s events on stderr with journal priorities, no daemon.log', async (t) => {
  const box = await sandbox(t);
  const bad = await box.cli(['daemon', '--log-to', 'syslog']);
  assert.equal(bad.code, 2);
  assert.match(bad.stderr, /^super: E_USAGE: --log-to syslog: give file \(daemon\.log\) or stderr/);

  box.write('idle.cjs', 'setInterval(() => {}, 60000);\n');
  const eco = box.write('eco.yml', 'apps:\n  - name: web\n    script: idle.cjs\n    ready_on: spawn\n');
  const d = superProcess(box, t, ['daemon', '--foreground', '--log-to', 'stderr'], { env: { JOURNAL_STREAM: '8:4242' } });
  const seen = (re) => d.waitFor(re, { stream: 'err' });
  await seen(/"msg":"daemon ready"/);
  await box.start(eco);
  await seen(/web#0 starting -> online/);
  assert.equal((await d.stop('SIGTERM')).code, 0);

  const lines = d.stderr.trimEnd().split('\n');
  for (const l of lines) assert.match(l, /^<[2-7]>\{"level":\d+,/, 'each line: <priority> then pino\'s JSON');
  const records = lines.map((l) => ({ prio: Number(l[1]), ...JSON.parse(l.slice(3)) }));
  const ready = records.find((o) => o.msg === 'daemon ready');
  assert.deepEqual([ready.prio, ready.level, ready.home], [6, 30, box.home]);
  assert.ok(records.some((o) => o.msg === 'web#0 starting -> online' && o.app === 'web'), 'worker events');
  assert.ok(records.some((o) => /stopping|stopped/.test(o.msg)), 'the stop is logged too (flushed before exit)');
  assert.equal(fs.existsSync(path.join(box.home, 'daemon.log')), false, 'no daemon.log');
});
