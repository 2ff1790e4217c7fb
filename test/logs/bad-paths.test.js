// Issue 3: a log directory that is missing or not writable refuses `start` (E_LOG_PATH,
// exit 2, the path named, nothing started); a write error (disk full) is logged once and
// the app keeps running, and writing resumes once there is space again.
import test from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { spawnSync } from 'node:child_process';
import { sandbox, lsJson, freePort, httpGet } from '../helpers/harness.js';
import { eventually } from '../helpers/wait.js';

test('missing or unusable log directory: E_LOG_PATH naming the path, exit 2, nothing started', async (t) => {
  const box = await sandbox(t);
  box.fixture('idle.js');
  box.write('not-a-dir', 'x');
  const eco = box.write('eco.yml', `
apps:
  - name: ok
    script: idle.js
  - name: lost
    script: idle.js
    out_file: no/such/dir/lost.log
    kill_signal: SIGINT # a key only superd has: not a PM2 file (superd creates a PM2 file's log directories, as PM2 does)
`);
  const r = await box.cli(['start', eco]);
  assert.equal(r.code, 2, r.stderr);
  const missing = path.join(box.dir, 'no', 'such', 'dir');
  assert.equal(r.stderr, `super: E_LOG_PATH: lost: cannot write log file ${missing}/lost.log: directory ${missing} does not exist; create it or fix the path\n`);
  assert.deepEqual((await lsJson(box)).apps, [], 'nothing was started, not even the good app');

  const eco2 = box.write('eco2.yml', `
logs:
  dir: not-a-dir
apps:
  - name: ok
    script: idle.js
`);
  const r2 = await box.cli(['start', eco2]);
  assert.equal(r2.code, 2);
  const notDir = path.join(box.dir, 'not-a-dir');
  assert.equal(r2.stderr, [
    'super: E_LOG_PATH: 2 log files cannot be written; nothing was started',
    `  ok: cannot write log file ${notDir}/ok-out.log: ${notDir} is not a directory`,
    `  ok: cannot write log file ${notDir}/ok-err.log: ${notDir} is not a directory`,
    '',
  ].join('\n'));

  if (process.getuid?.() !== 0) {
    // root may write anywhere: this part only means something for other users
    fs.mkdirSync(path.join(box.dir, 'ro'), { mode: 0o500 });
    const eco3 = box.write('eco3.yml', 'logs:\n  dir: ro\napps:\n  - name: ok\n    script: idle.js\n');
    const r3 = await box.cli(['start', eco3]);
    assert.equal(r3.code, 2);
    assert.match(r3.stderr, /ok: cannot write log file .*ro\/ok-out.log: EACCES: .*ro is not writable/);
  }
  assert.deepEqual((await lsJson(box)).apps, []);
});

test('disk full while writing: logged once in daemon.log, the app keeps running', async (t) => {
  const box = await sandbox(t);
  box.fixture('log-writer.js');
  // /dev/full fails every write with ENOSPC, like a full disk
  const eco = box.write('eco.yml', `
apps:
  - name: full
    script: log-writer.js
    ready_on: ready
    out_file: /dev/full
    env: { LINES: 5000, ERR_EVERY: 1000 }
`);
  await box.start(eco);
  const logFile = path.join(box.home, 'daemon.log');
  const failures = () => fs.readFileSync(logFile, 'utf8').split('\n').filter((l) => l.includes('log write failed'));
  await eventually(() => failures().length > 0, { what: 'the write failure in daemon.log' });
  const ls = await lsJson(box);
  assert.equal(ls.apps[0].status, 'online');
  assert.equal(ls.apps[0].workers[0].restarts, 0, 'the app did not crash');
  assert.equal(failures().length, 1, 'logged once for 4995 failed lines');
  assert.match(failures()[0], /"stream":"out".*"code":"ENOSPC"/);
  // stderr (another file) kept working
  assert.equal(fs.readFileSync(path.join(box.home, 'logs', 'full-err.log'), 'utf8').trimEnd().split('\n').length, 5);
});

test('disk full, then space again: writing resumes and the daemon log says so', async (t) => {
  const box = await sandbox(t);
  const port = await freePort();
  box.fixture('log-writer.js');
  // A real full file system: a 64 KiB tmpfs (needs root; skipped otherwise).
  // Its own directory (not in the sandbox, whose cleanup would find it busy).
  const small = fs.mkdtempSync(path.join(os.tmpdir(), 'sd-full-'));
  const mounted = spawnSync('mount', ['-t', 'tmpfs', '-o', 'size=64k,mode=0755', 'tmpfs', small]).status === 0;
  t.after(() => {
    if (mounted) spawnSync('umount', ['-l', small]);
    fs.rmSync(small, { recursive: true, force: true });
  });
  if (!mounted) return t.skip('cannot mount a small tmpfs here (not root)');
  const eco = box.write('eco.yml', `
apps:
  - name: disk
    script: log-writer.js
    out_file: ${JSON.stringify(path.join(small, 'out.log'))}
    env: { PORT: ${port} }
`);
  await box.start(eco);
  const filler = path.join(small, 'filler');
  fs.writeFileSync(filler, Buffer.alloc(60 * 1024)); // leaves a few KiB
  await httpGet(port, '/write?n=400'); // ~25 KB of lines: the disk fills up
  const logFile = path.join(box.home, 'daemon.log');
  await eventually(() => fs.readFileSync(logFile, 'utf8').includes('log write failed'), { what: 'the ENOSPC report' });
  fs.rmSync(filler);
  const next = Number((await httpGet(port, '/write?n=10')).body); // sequence after these lines
  await eventually(() => fs.readFileSync(logFile, 'utf8').includes('log writing resumed'), { what: 'the resume report' });
  const lines = fs.readFileSync(path.join(small, 'out.log'), 'utf8').trimEnd().split('\n');
  assert.match(lines.at(-1), new RegExp(` ${String(next - 1).padStart(7, '0')} `), 'the last line written after space came back is in the file');
  assert.equal((await lsJson(box)).apps[0].workers[0].restarts, 0);
});
