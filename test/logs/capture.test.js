// Issue 3: every line of several workers lands intact and complete; `super logs --lines`,
// --out/--err and --json print what a user expects.
import test from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { allLines, checkNumbered } from './log-files.js';
import { fileSandbox, deleteAtEnd } from '../helpers/file-daemon.js';

// One daemon: each test starts apps of its own (deleted after; their log files stay, so the
// second test leaves the first one's out of its listing).
const fileBox = await fileSandbox();

test('4 workers x 5,000 lines (1.1 MB through the pipes, lines cut across reads): all on disk, none split, none lost; logs --lines/--out/--err/--json', async (t) => {
  const box = fileBox;
  deleteAtEnd(t, box, ['flood']);
  box.fixture('log-writer.js');
  const eco = box.write('flood.yml', `
apps:
  - name: flood
    script: log-writer.js
    instances: 4
    ready_on: ready
    env: { LINES: 5000, ERR_EVERY: 250 }
`);
  await box.start(eco);
  // ready() comes after the last write: every line is on disk now.
  const out = path.join(box.home, 'logs', 'flood-out.log');
  const err = path.join(box.home, 'logs', 'flood-err.log');
  const lines = [...allLines(out).lines, ...allLines(err).lines];
  assert.deepEqual(checkNumbered(lines, { workers: 4, perWorker: 5000 }), { count: 20000, bad: 0, missing: 0, dups: 0 });
  assert.equal(allLines(err).lines.length, 4 * 20, 'every 250th line went to stderr');

  const tail = await box.cli(['logs', 'flood', '--lines', '5', '--out']);
  assert.equal(tail.code, 0, tail.stderr);
  const shown = tail.stdout.trimEnd().split('\n');
  assert.equal(shown.length, 5);
  const last5 = fs.readFileSync(out, 'utf8').trimEnd().split('\n').slice(-5);
  assert.deepEqual(shown, last5.map((l) => `flood | ${l}`));

  const errs = await box.cli(['logs', 'flood', '--lines', '3', '--err']);
  assert.deepEqual(errs.stdout.trimEnd().split('\n').map((l) => l.slice(0, 8)), ['flood ! ', 'flood ! ', 'flood ! '], 'stderr lines are marked with !');

  const both = await box.cli(['logs', '--lines', '2', '--json']);
  const objs = both.stdout.trimEnd().split('\n').map((l) => JSON.parse(l));
  assert.deepEqual(objs.map((o) => [o.app, o.stream]), [['flood', 'out'], ['flood', 'out'], ['flood', 'err'], ['flood', 'err']]);
  assert.match(objs[0].msg, /^L w\d \d{7} x+$/);

  const none = await box.cli(['logs', 'nope']);
  assert.equal(none.code, 2);
  assert.match(none.stderr, /E_APP_NOT_FOUND/);
  const bad = await box.cli(['logs', 'flood', '--lines', 'many']);
  assert.equal(bad.code, 2);
  assert.match(bad.stderr, /^super: E_USAGE: --lines many/);
});

test('merge_logs: false writes one file per slot; disable_logs writes none; flush empties', async (t) => {
  const box = fileBox;
  deleteAtEnd(t, box, ['split', 'quiet']);
  box.fixture('log-writer.js');
  const eco = box.write('split.yml', `
apps:
  - name: split
    script: log-writer.js
    instances: 2
    ready_on: ready
    merge_logs: false
    env: { LINES: 100 }
  - name: quiet
    script: log-writer.js
    ready_on: ready
    disable_logs: true
    env: { LINES: 100 }
`);
  await box.start(eco);
  const dir = path.join(box.home, 'logs');
  assert.deepEqual(fs.readdirSync(dir).filter((n) => !n.startsWith('flood-')).sort(), ['split-err-0.log', 'split-err-1.log', 'split-out-0.log', 'split-out-1.log']);
  for (const s of [0, 1]) {
    const lines = fs.readFileSync(path.join(dir, `split-out-${s}.log`), 'utf8').trimEnd().split('\n');
    assert.equal(lines.length, 100);
    assert.ok(lines.every((l) => l.startsWith(`L w${s} `)), `slot ${s} file has only slot ${s} lines`);
  }
  const tail = await box.cli(['logs', 'split', '--lines', '1', '--out']);
  assert.deepEqual(tail.stdout.trimEnd().split('\n').map((l) => l.split(' | ')[0]), ['split#0', 'split#1'], 'per-slot files show the slot');

  const f = await box.cli(['flush', 'split']);
  assert.equal(f.code, 0, f.stderr);
  assert.match(f.stdout, /flushed split/);
  assert.equal(fs.statSync(path.join(dir, 'split-out-0.log')).size, 0);
  const empty = await box.cli(['logs', 'split']);
  assert.equal(empty.stdout, '');
});
