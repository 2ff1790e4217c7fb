// Issue 3: rotation by rename + reopen under writes loses nothing (lines counted across
// rotated files), reopen after an external rename (super reload-logs, SIGUSR2), fork-mode
// apps without the agent, and the daemon's own log.
import test from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { sandbox, freePort, httpGet, lsJson } from '../helpers/harness.js';
import { allLines, checkNumbered } from './log-files.js';
import { eventually } from '../helpers/wait.js';
import { request } from '../helpers/requests.js';
import { fileSandbox, deleteAtEnd } from '../helpers/file-daemon.js';

// One daemon for the tests that only start an app of their own and read its files. The
// reopen test (it renames daemon.log and signals the daemon) has a daemon of its own.
const fileBox = await fileSandbox();

test('rotation at log_max_size while 4 workers write 25,000 lines each: 0 lost, 0 split, gzip, retain', async (t) => {
  const box = fileBox;
  deleteAtEnd(t, box, ['rot']);
  box.fixture('log-writer.js');
  const eco = box.write('rot.yml', `
logs:
  compress: true
apps:
  - name: rot
    script: log-writer.js
    instances: 4
    ready_on: ready
    log_max_size: 256K
    log_retain: 100
    env: { LINES: 25000 }
`);
  await box.start(eco);
  const out = path.join(box.home, 'logs', 'rot-out.log');
  // Wait until rotation is over: the current file is below the limit (no rotation to come)
  // and no plain rotated file is left (none being compressed). Reading the files while the
  // chain shifts would read one file twice and miss another.
  const quiet = () => (fs.statSync(out, { throwIfNoEntry: false })?.size ?? Infinity) < 256 * 1024 && !fs.readdirSync(path.dirname(out)).some((n) => /^rot-out\.log\.\d+$/.test(n));
  // Quiet can also hold between two rotations while the workers still write: wait for all
  // their lines too (read only once quiet, so the chain is not shifting under the read).
  await eventually(() => quiet() && allLines(out).lines.length >= 100000, { what: 'every line written, the last rotation and its compression', every: 500 });
  const { lines, files } = allLines(out);
  assert.ok(files.filter((f) => f.endsWith('.gz')).length >= 2, `rotated several times: ${files.map((f) => path.basename(f)).join(' ')}`);
  assert.deepEqual(checkNumbered(lines, { workers: 4, perWorker: 25000 }), { count: 100000, bad: 0, missing: 0, dups: 0 });
  const log = fs.readFileSync(path.join(box.home, 'daemon.log'), 'utf8');
  assert.match(log, /"app":"rot".*"msg":"log rotated"|"msg":"log rotated".*"app":"rot"/);
});

test('log_retain keeps that many rotated files, the newest as .1', async (t) => {
  const box = fileBox;
  deleteAtEnd(t, box, ['keep2']);
  const port = await freePort();
  box.fixture('log-writer.js');
  const eco = box.write('keep2.yml', `
apps:
  - name: keep2
    script: log-writer.js
    log_max_size: 20K
    log_retain: 2
    env: { PORT: ${port}, PAD: 1000 }
`);
  await box.start(eco);
  const dir = path.join(box.home, 'logs');
  const rotated = () => fs.readdirSync(dir).filter((n) => /^keep2-out\.log\.\d+$/.test(n)).sort();
  // 5 rounds of ~25 KB, each followed by its rotation
  for (let i = 1; i <= 5; i++) {
    await httpGet(port, '/write?n=25');
    await eventually(() => fs.statSync(path.join(dir, 'keep2-out.log')).size === 0 && rotated().length === Math.min(i, 2), { what: `rotation ${i}` });
  }
  assert.deepEqual(rotated(), ['keep2-out.log.1', 'keep2-out.log.2']);
  // the newest rotated file holds the last round
  assert.match(fs.readFileSync(path.join(dir, 'keep2-out.log.1'), 'utf8').split('\n')[0], / 0000100 /);
});

test('reopen after an external rename: super reload-logs and SIGUSR2; daemon.log too', async (t) => {
  const box = await sandbox(t);
  const port = await freePort();
  box.fixture('log-writer.js');
  const eco = box.write('eco.yml', `
apps:
  - name: web
    script: log-writer.js
    instances: 2
    env: { PORT: ${port} }
`);
  await box.start(eco);
  const out = path.join(box.home, 'logs', 'web-out.log');
  await httpGet(port, '/write?n=100');
  await httpGet(port, '/write?n=100');

  // what an external logrotate does: move the file away, then ask for a reopen
  fs.renameSync(out, `${out}.moved`);
  fs.renameSync(path.join(box.home, 'daemon.log'), path.join(box.home, 'daemon.log.moved'));
  await httpGet(port, '/write?n=10'); // before the reopen: lands in the moved file
  const r = await box.cli(['reload-logs']);
  assert.equal(r.code, 0, r.stderr);
  assert.match(r.stdout, /reopened 2 log file\(s\) of 1 app\(s\)/);
  await httpGet(port, '/write?n=10');
  const moved = fs.readFileSync(`${out}.moved`, 'utf8').trimEnd().split('\n');
  const fresh = fs.readFileSync(out, 'utf8').trimEnd().split('\n');
  assert.equal(moved.length, 210, 'lines written before the reopen stay in the moved file');
  assert.equal(fresh.length, 10, 'lines after the reopen go to the new file');
  await eventually(() => fs.existsSync(path.join(box.home, 'daemon.log')) && /log files reopened/.test(fs.readFileSync(path.join(box.home, 'daemon.log'), 'utf8')), { what: 'daemon.log reopened' });

  // SIGUSR2 to the daemon does the same
  fs.renameSync(out, `${out}.moved2`);
  process.kill(box.daemonPid(), 'SIGUSR2');
  await eventually(() => fs.existsSync(out), { what: 'reopen on SIGUSR2' });
  // the reopen reaches the workers just after the file exists: write until lines land there
  await eventually(async () => {
    await httpGet(port, '/write?n=1');
    return fs.statSync(out).size > 0;
  }, { what: 'lines in the reopened file' });
  assert.ok(fs.statSync(`${out}.moved2`).size > 0);
  assert.equal((await lsJson(box)).apps[0].status, 'online');
});

test('fork mode without the agent (interpreter none): rotation renames, the child keeps its file until it restarts', async (t) => {
  const box = fileBox;
  deleteAtEnd(t, box, ['sh']);
  const script = box.write('chatty.sh', '#!/bin/sh\ni=0\nwhile [ $i -lt 400 ]; do echo "line $i slot $NODE_APP_INSTANCE"; i=$((i+1)); done\nexec sleep 300\n');
  fs.chmodSync(script, 0o755);
  const eco = box.write('sh.yml', `
apps:
  - name: sh
    script: chatty.sh
    log_max_size: 4K
    log_retain: 10
`);
  await box.start(eco);
  const out = path.join(box.home, 'logs', 'sh-out.log');
  await eventually(() => fs.existsSync(`${out}.1`), { what: 'a rotation' });
  const first = allLines(out).lines;
  await eventually(() => allLines(out).lines.length === 400, { what: '400 lines across files' });
  assert.ok(first.length <= 400);
  assert.deepEqual(allLines(out).lines.map((l) => Number(l.split(' ')[1])).sort((a, b) => a - b), Array.from({ length: 400 }, (_, i) => i));
  // restart: the new child gets the current file (and rotates on from there)
  const firstFiles = allLines(out).files.length;
  await request(box, 'restart', { target: ['sh'] });
  await eventually(() => allLines(out).lines.length === 800, { what: 'the restarted child writing its 400 lines' });
  assert.ok(allLines(out).files.length > firstFiles, 'the restarted child wrote to a new file, which rotated in turn');
});

test('super logs --lines reaches back into the rotated file when the current one is short', async (t) => {
  const box = fileBox;
  deleteAtEnd(t, box, ['tail']);
  const port = await freePort();
  box.fixture('log-writer.js');
  const eco = box.write('tail.yml', `
apps:
  - name: tail
    script: log-writer.js
    log_max_size: 10K
    env: { PORT: ${port}, PAD: 1000 }
`);
  await box.start(eco);
  const out = path.join(box.home, 'logs', 'tail-out.log');
  await httpGet(port, '/write?n=12');
  await eventually(() => fs.existsSync(`${out}.1`) && fs.statSync(out).size === 0, { what: 'a rotation' });
  await httpGet(port, '/write?n=2');
  const r = await box.cli(['logs', 'tail', '--out', '--lines', '5']);
  assert.deepEqual(r.stdout.trimEnd().split('\n').map((l) => l.split(' ')[4]), ['0000009', '0000010', '0000011', '0000012', '0000013']);
});

test('fork mode with the agent (interpreter node): the child moves to the new file by itself after reload-logs', async (t) => {
  const box = fileBox;
  deleteAtEnd(t, box, ['fk']);
  const port = await freePort();
  box.fixture('log-writer.js');
  const eco = box.write('fk.yml', `
apps:
  - name: fk
    script: log-writer.js
    exec_mode: fork
    env: { PORT: ${port} }
`);
  await box.start(eco);
  const out = path.join(box.home, 'logs', 'fk-out.log');
  await eventually(async () => (await httpGet(port, '/write?n=5').catch(() => null)) !== null, { what: 'the fork-mode app listening' });
  fs.renameSync(out, `${out}.moved`);
  await request(box, 'reload-logs'); // `super reload-logs`: returns once the child acked
  await httpGet(port, '/write?n=7');
  assert.equal(fs.readFileSync(`${out}.moved`, 'utf8').trimEnd().split('\n').length, 5);
  assert.equal(fs.readFileSync(out, 'utf8').trimEnd().split('\n').length, 7);
});
