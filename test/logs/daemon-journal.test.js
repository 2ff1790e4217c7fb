// Issue 16: under systemd the daemon's own log goes to the journal. The generated unit runs
// `super daemon --log-to stderr` with SyslogIdentifier=superd; the daemon then writes its
// events to stderr (each line prefixed with its syslog priority when stderr is the journal,
// JOURNAL_STREAM set) and no daemon.log.
import test from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { spawn } from 'node:child_process';
import { sandbox, SUPER } from '../helpers/harness.js';
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
  const d = spawn(process.execPath, [SUPER, 'daemon', '--foreground', '--log-to', 'stderr'], {
    env: { ...process.env, SUPER_HOME: box.home, JOURNAL_STREAM: '8:4242' }, stdio: ['ignore', 'ignore', 'pipe'],
  });
  t.after(() => d.kill('SIGKILL'));
  let stderr = '';
  d.stderr.on('data', (chunk) => (stderr += chunk));
  // Resolves once stderr holds re; bounded by the test's timeout and by the daemon's exit.
  const seen = (re) => new Promise((resolve, reject) => {
    const check = () => {
      if (!re.test(stderr)) return;
      d.stderr.off('data', check);
      d.off('exit', onExit);
      resolve();
    };
    const onExit = () => reject(new Error(`the daemon exited before ${re}: ${stderr}`));
    d.stderr.on('data', check);
    d.on('exit', onExit);
    check();
  });
  await seen(/"msg":"daemon ready"/);
  await box.start(eco);
  await seen(/web#0 starting -> online/);
  const exited = new Promise((resolve) => d.once('exit', (code) => resolve(code)));
  d.kill('SIGTERM');
  assert.equal(await exited, 0);

  const lines = stderr.trimEnd().split('\n');
  for (const l of lines) assert.match(l, /^<[2-7]>\{"level":\d+,/, 'each line: <priority> then pino\'s JSON');
  const records = lines.map((l) => ({ prio: Number(l[1]), ...JSON.parse(l.slice(3)) }));
  const ready = records.find((o) => o.msg === 'daemon ready');
  assert.deepEqual([ready.prio, ready.level, ready.home], [6, 30, box.home]);
  assert.ok(records.some((o) => o.msg === 'web#0 starting -> online' && o.app === 'web'), 'worker events');
  assert.ok(records.some((o) => /stopping|stopped/.test(o.msg)), 'the stop is logged too (flushed before exit)');
  assert.equal(fs.existsSync(path.join(box.home, 'daemon.log')), false, 'no daemon.log');
});
