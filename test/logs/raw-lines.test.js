// Raw mode (no log format) holds a trailing partial line like the formatted modes do:
// a line written in pieces reaches the shared O_APPEND file in one write(), so lines of
// several workers never interleave; a held line is flushed at exit, and the hold timer
// never keeps a worker alive.
import test from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { spawn } from 'node:child_process';
import { sandbox, ROOT } from '../helpers/harness.js';

const LOG_FORMAT = path.join(ROOT, 'lib', 'worker', 'log-format.cjs');

test('4 workers writing each line in 4 pieces into one merged raw file: every line intact', async (t) => {
  const box = await sandbox(t);
  // 'seq=', N, ' worker=W', '\n' as separate writes; batches yield so the workers overlap.
  box.write('pieces.js', `
const w = process.env.SUPER_SLOT;
const total = Number(process.env.LINES);
let seq = 0;
(function batch() {
  for (const stop = Math.min(seq + 200, total); seq < stop; seq++) {
    process.stdout.write('seq=');
    process.stdout.write(String(seq));
    process.stdout.write(Buffer.from(' worker=' + w));
    process.stdout.write('\\n');
  }
  if (seq < total) setImmediate(batch);
  else process.send({ cmd: 'super:ready' });
})();
setInterval(() => {}, 60000);
`);
  const eco = box.write('eco.yml', `
apps:
  - name: pieces
    script: pieces.js
    instances: 4
    ready_on: ready
    env: { LINES: 5000 }
`);
  await box.start(eco);
  // ready() comes after the last write: every line is on disk now.
  const text = fs.readFileSync(path.join(box.home, 'logs', 'pieces-out.log'), 'utf8');
  assert.ok(text.endsWith('\n'), 'the file ends with a whole line');
  const lines = text.slice(0, -1).split('\n');
  const bad = lines.filter((l) => !/^seq=\d+ worker=[0-3]$/.test(l));
  assert.deepEqual(bad.slice(0, 5), [], `${bad.length} lines were split or interleaved`);
  const next = [0, 0, 0, 0];
  for (const l of lines) {
    const [, seq, w] = /^seq=(\d+) worker=(\d)$/.exec(l);
    assert.equal(Number(seq), next[w], `worker ${w}'s lines in order, none lost`);
    next[w]++;
  }
  assert.deepEqual(next, [5000, 5000, 5000, 5000]);
});

/** Runs `script` with the agent's log writer on files in `dir`; resolves {code, out, err}. */
function runAgent(dir, name, script) {
  const out = path.join(dir, `${name}-out.log`);
  const err = path.join(dir, `${name}-err.log`);
  const fds = [fs.openSync(out, 'a'), fs.openSync(err, 'a')];
  const child = spawn(process.execPath, ['--require', LOG_FORMAT, '-e', script], {
    stdio: ['ignore', fds[0], fds[1]],
    env: { ...process.env, SUPER_LOG: JSON.stringify({ out, err, type: 'raw', date: null, app: name, slot: 0 }) },
  });
  for (const fd of fds) fs.closeSync(fd);
  const timer = setTimeout(() => child.kill('SIGKILL'), 20000); // a hung child fails the test
  return new Promise((resolve, reject) => {
    child.on('error', reject);
    child.on('exit', (code, signal) => {
      clearTimeout(timer);
      resolve({ code, signal, out: fs.readFileSync(out, 'utf8'), err: fs.readFileSync(err, 'utf8') });
    });
  });
}

test('a held partial line is written at exit; its timer keeps no worker alive; held bytes are copied', async (t) => {
  const box = await sandbox(t);
  // Ends by itself with a line held: the unref'd timer must not count as active.
  const natural = await runAgent(box.dir, 'natural', `
process.stdout.write('done');
process.stdout.write(' without newline');
process.stderr.write('ref timers: ' + process.getActiveResourcesInfo().filter((r) => r === 'Timeout').length + '\\n');
`);
  assert.equal(natural.code, 0);
  assert.equal(natural.out, 'done without newline\n', 'the held line is written, whole, at exit');
  assert.equal(natural.err, 'ref timers: 0\n', 'the hold timer is unref\'d');

  const exited = await runAgent(box.dir, 'exit3', `
process.stdout.write('line 1\\n');
process.stdout.write('last ');
process.stdout.write('words');
process.exit(3);
`);
  assert.equal(exited.code, 3);
  assert.equal(exited.out, 'line 1\nlast words\n', 'process.exit() flushes the held line');

  // A Buffer the app reuses after write() returned must not change what was held.
  const reused = await runAgent(box.dir, 'reused', `
const buf = Buffer.from('first half ');
process.stdout.write(buf);
buf.fill('X');
process.stdout.write(buf);
process.stdout.write('end\\nnext\\n');
`);
  assert.equal(reused.out, 'first half XXXXXXXXXXXend\nnext\n');
});

test('a held partial line is written, with a newline, after a moment; one past 64 KiB at once', async (t) => {
  const box = await sandbox(t);
  // Stays alive until its own file (fd 1) has the line: only the hold timer can put it there.
  const waited = await runAgent(box.dir, 'waited', `
process.stdout.write('held for a while');
const check = setInterval(() => require('node:fs').fstatSync(1).size > 0 && (clearInterval(check), process.stdout.write('then done\\n')), 20);
`);
  assert.equal(waited.signal, null, 'the held line came by itself');
  assert.equal(waited.out, 'held for a while\nthen done\n');

  const big = await runAgent(box.dir, 'big', `
for (let i = 0; i < 70; i++) process.stdout.write('y'.repeat(1000));
process.stderr.write('on disk before exit: ' + require('node:fs').fstatSync(1).size + '\\n');
`);
  assert.equal(big.err, 'on disk before exit: 66000\n', 'what is held stays bounded: past 64 KiB it is written as it is');
  assert.equal(big.out, `${'y'.repeat(70000)}\n`);
});
