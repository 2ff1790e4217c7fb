// PM2's `pm2 start` flags -> superd app keys: the mapping, and that every flag PM2 7's CLI
// declares is taken, ignored with a warning, or refused with a reason (none falls through
// to commander's bare "unknown option").
import test from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { ROOT } from '../helpers/harness.js';
import { PM2_START_FLAGS, flagsOf, optionName, pm2StartKeys } from '../../lib/ctl/pm2-start-flags.js';

test('flags set their app keys, with PM2\'s units', () => {
  const { keys, warnings, refused } = pm2StartKeys({
    maxMemoryRestart: '200M', autorestart: false, executeCommand: true, cron: '0 3 * * *', killTimeout: '3000',
    watchDelay: '4', stopExitCodes: ['0', '3'], log: true, time: true, nodeArgs: '--max-old-space-size=512', vizion: false,
  });
  assert.equal(refused, null);
  assert.deepEqual(keys, {
    max_memory_restart: '200M', autorestart: false, exec_mode: 'fork', cron_restart: '0 3 * * *', kill_timeout: 3000,
    watch_delay: 4000, stop_exit_codes: [0, 3], log_file: true, time: true, node_args: '--max-old-space-size=512',
  });
  assert.deepEqual(warnings, ['--no-vizion: ignored (PM2\'s versioning metadata)']);
});

test('a --no-x flag counts only when given (commander defaults x to true)', () => {
  assert.deepEqual(pm2StartKeys({ autorestart: true, autostart: true, vizion: true, treekill: true }), { keys: {}, warnings: [], refused: null, given: [] });
});

test('a flag superd cannot honour is refused with its name and what to do', () => {
  assert.match(pm2StartKeys({ attach: true }).refused, /^--attach: .*super logs <app> -f$/);
  assert.match(pm2StartKeys({ force: true }).refused, /^--force: /);
  assert.match(pm2StartKeys({ hp: '/home/x' }).refused, /^--hp: a flag of pm2 startup/);
});

test('every option PM2 7 declares for pm2 start is taken, ignored or refused', (t) => {
  const cli = path.join(ROOT, 'node_modules/pm2/lib/binaries/CLI.js');
  if (!fs.existsSync(cli)) return t.skip('pm2 (a devDependency) is not installed');
  const text = fs.readFileSync(cli, 'utf8');
  // The global options (before the first command) and those of `start`.
  const globalPart = text.slice(0, text.indexOf('commander.command('));
  const startPart = /commander\.command\('start[^]*?\.action/.exec(text)[0];
  const declared = [...`${globalPart}\n${startPart}`.matchAll(/\.option\('([^']+)'/g)].map((m) => /--[\w-]+/.exec(m[1])[0]);
  const superd = ['--version', '--name', '--instances', '--env', '--only', '--watch']; // super start's own options
  const table = new Set(PM2_START_FLAGS.map(([flags]) => /--[\w-]+/.exec(flags)[0]));
  const missing = declared.filter((f) => !table.has(f) && !superd.includes(f));
  assert.deepEqual(missing, []);
  assert.ok(declared.length > 60, `${declared.length} options read from PM2's CLI`);
});

test('option names as commander gives them', () => {
  assert.equal(optionName('--no-autorestart'), 'autorestart');
  assert.equal(optionName('-k, --kill-timeout <delay>'), 'killTimeout');
  assert.equal(optionName('--v8'), 'v8');
});

test('describe gives the flags back from the keys', () => {
  const { keys } = pm2StartKeys({ maxMemoryRestart: '200M', autorestart: false, time: true, stopExitCodes: ['0'], output: 'o.log' });
  assert.deepEqual(flagsOf({ ...keys, exec_mode: 'cluster' }), ['--max-memory-restart', '200M', '--no-autorestart', '--output', 'o.log', '--time', '--stop-exit-codes', '0', '--cluster']);
});
