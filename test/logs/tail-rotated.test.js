// `super logs --lines/--since` reach into rotated files, gzipped ones included, newest
// first, and stop where the wanted lines end (lib/logs/tail.js, on real files).
import test from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import zlib from 'node:zlib';
import { tailFiles, timeReader } from '../../lib/logs/tail.js';

/** api-out.log (lines 20-21) <- .1 (10-19, plain) <- .2.gz (0-9), each older by a minute; lines dated */
function chain(t) {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'superd-tail-'));
  t.after(() => fs.rmSync(dir, { recursive: true, force: true }));
  const file = path.join(dir, 'api-out.log');
  const t0 = Date.parse('2026-11-26T10:00:00Z');
  const line = (i) => `${new Date(t0 + i * 60_000).toISOString()} line ${i}\n`;
  const text = (from, to) => Array.from({ length: to - from }, (_, k) => line(from + k)).join('');
  fs.writeFileSync(`${file}.2.gz`, zlib.gzipSync(text(0, 10)));
  fs.writeFileSync(`${file}.1`, text(10, 20));
  fs.writeFileSync(file, text(20, 22));
  const at = (p, s) => fs.utimesSync(p, s, s);
  at(`${file}.2.gz`, 1000);
  at(`${file}.1`, 2000);
  return { file, t0 };
}

const numbers = (lines) => lines.map((l) => Number(/line (\d+)$/.exec(l)[1]));

test('--lines reaches through the rotated chain, gzip included, in order', async (t) => {
  const { file } = chain(t);
  const timeOf = () => timeReader({ type: 'raw', date: 'ISO' });
  const get = async (o) => numbers((await tailFiles([{ path: file }], { timeOf, ...o }))[0].lines);
  assert.deepEqual(await get({ lines: 2 }), [20, 21]);
  assert.deepEqual(await get({ lines: 5 }), [17, 18, 19, 20, 21]);
  assert.deepEqual(await get({ lines: 15 }), [7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21]);
  assert.deepEqual(await get({ lines: 100 }), Array.from({ length: 22 }, (_, i) => i));
});

test('--since reaches back only as far as the time asked', async (t) => {
  const { file, t0 } = chain(t);
  const timeOf = () => timeReader({ type: 'raw', date: 'ISO' });
  const since = async (minute) => numbers((await tailFiles([{ path: file }], { timeOf, since: t0 + minute * 60_000 }))[0].lines);
  assert.deepEqual(await since(21), [21]);
  assert.deepEqual(await since(15), [15, 16, 17, 18, 19, 20, 21]);
  assert.deepEqual(await since(5), Array.from({ length: 17 }, (_, i) => i + 5));
});

test('a corrupt .gz in the chain is passed over, not an error', async (t) => {
  const { file } = chain(t);
  fs.writeFileSync(`${file}.2.gz`, 'not gzip at all');
  fs.utimesSync(`${file}.2.gz`, 1000, 1000);
  const [{ lines }] = await tailFiles([{ path: file }], { timeOf: () => null, lines: 50 });
  assert.deepEqual(numbers(lines), Array.from({ length: 12 }, (_, i) => i + 10));
});
