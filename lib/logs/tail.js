// The last lines of log files, read backwards in chunks (async, bounded), optionally only
// those since a time: for `super logs`. It knows files and paths only; which files an app
// has is the daemon's business (lib/master/control/log-handlers.js).
import fsp from 'node:fs/promises';
import zlib from 'node:zlib';
import { createRequire } from 'node:module';
import { rotatedFiles } from './rotate.js';
import { openForReading } from './open-for-reading.js';

// CommonJS (the agent shares it) is require()d: importing it from ESM would load Node's
// CommonJS export scanner, ~4 MB of the daemon's memory for as long as it runs.
const require = createRequire(import.meta.url);
const { compileParser } = require('./date-format.cjs');

const CHUNK = 64 * 1024;
const MAX_SCAN = 8 * 1024 * 1024; // never read more than this much of a file for one request
const MAX_GUNZIP = 256 * 1024 * 1024; // nor decompress more than this of a rotated .gz
const MAX_ROTATED = 16; // nor look into more rotated files than this, newest first

/**
 * The last lines of a file, and whether older lines may still be wanted: the whole file
 * was read and none of it was cut by `lines` or `since` (then the file rotated before it
 * may hold more).
 * @param {string} file
 * @param {{lines: number, maxBytes: number, since?: number, timeOf?: ((line: string) => number|null)|null, end?: number, mark?: {ino: number, from: number}|null}} o
 *   lines: how many at most (the last ones); maxBytes: at most this much text (the last lines
 *   win); since: epoch ms, only lines at or after it (needs timeOf); timeOf: the time of a line,
 *   null when it has none; end: read up to this offset (default: the current size);
 *   mark: {ino, from}, where the app's current workers began writing (App#stderrSince)
 * @returns {Promise<{lines: string[], wantsOlder: boolean, earlier?: number}>}  earlier: how many
 *   of the lines, from the first, were written before `mark` (absent: the mark is not in this file)
 */
async function readTail(file, { lines, maxBytes, since, timeOf, end, mark }) {
  if (file.endsWith('.gz')) return pick(await gunzipTail(file), false, { lines, maxBytes, since, timeOf });
  let fh;
  try {
    fh = await openForReading(file);
  } catch (err) {
    if (err.code === 'ENOENT') return { lines: [], wantsOlder: true };
    throw err;
  }
  try {
    const st = await fh.stat();
    const stop = end ?? st.size;
    const chunks = [];
    let pos = stop;
    let newlines = 0;
    while (pos > 0 && stop - pos < MAX_SCAN) {
      const len = Math.min(CHUNK, pos);
      pos -= len;
      const buf = Buffer.alloc(len);
      await fh.read(buf, 0, len, pos);
      chunks.unshift(buf);
      for (let i = buf.indexOf(10); i !== -1; i = buf.indexOf(10, i + 1)) newlines++;
      if (since === undefined ? newlines > lines : olderThan(chunks[0], since, timeOf)) break;
    }
    const buf = Buffer.concat(chunks);
    const got = pick(buf, pos > 0, { lines, maxBytes, since, timeOf });
    // Another inode: rotated since the workers started; past the end: emptied since (flush).
    if (!mark || mark.ino !== st.ino || mark.from > stop) return got;
    return { ...got, earlier: Math.max(0, got.lines.length - linesFrom(buf, mark.from - pos)) };
  } finally {
    await fh.close();
  }
}

/** How many lines of `buf` begin at or after its byte `at` (all of them when `at` is before it). */
function linesFrom(buf, at) {
  if (at < 0) return Infinity;
  const rest = buf.subarray(at);
  let n = rest.length && rest[rest.length - 1] !== 10 ? 1 : 0;
  for (let i = rest.indexOf(10); i !== -1; i = rest.indexOf(10, i + 1)) n++;
  return n;
}

/** The wanted lines of `buf` (the end of a file; `partial`: its first line is cut). */
function pick(buf, partial, { lines, maxBytes, since, timeOf }) {
  let text = buf.toString('utf8');
  if (partial) text = text.slice(text.indexOf('\n') + 1);
  const all = text.split('\n');
  if (all[all.length - 1] === '') all.pop();
  let picked = since === undefined ? all : sinceFilter(all, since, timeOf);
  const cutBySince = picked.length < all.length;
  picked = picked.slice(-lines);
  let bytes = 0;
  let from = picked.length;
  while (from > 0 && bytes + picked[from - 1].length + 1 <= maxBytes) bytes += picked[--from].length + 1;
  const result = picked.slice(from);
  return { lines: result, wantsOlder: !partial && !cutBySince && result.length === all.length };
}

/**
 * The last MAX_SCAN bytes of a gzipped file, decompressed as a stream (zlib works in
 * the thread pool; only the last chunks are kept), at most MAX_GUNZIP bytes of it.
 */
async function gunzipTail(file) {
  const chunks = [];
  let kept = 0;
  let total = 0;
  const gunzip = zlib.createGunzip();
  let source;
  try {
    source = (await openForReading(file)).createReadStream();
    for await (const chunk of source.pipe(gunzip)) {
      chunks.push(chunk);
      kept += chunk.length;
      total += chunk.length;
      while (kept - chunks[0].length >= MAX_SCAN) kept -= chunks.shift().length;
      if (total > MAX_GUNZIP) break;
    }
  } catch (err) {
    if (err.code !== 'ENOENT' && err.code !== 'Z_DATA_ERROR' && err.code !== 'Z_BUF_ERROR') throw err;
  } finally {
    source?.destroy();
    gunzip.destroy();
  }
  const buf = Buffer.concat(chunks);
  return buf.length > MAX_SCAN ? buf.subarray(buf.length - MAX_SCAN) : buf;
}

/** True when the first dated line of `buf` (after its first newline) is older than `since`. */
function olderThan(buf, since, timeOf) {
  const lines = buf.toString('utf8').split('\n').slice(1);
  for (const l of lines) {
    const t = timeOf(l);
    if (t !== null) return t < since;
  }
  return false;
}

/** Lines at or after `since`; an undated line (a stack trace) goes with the line before it. */
function sinceFilter(lines, since, timeOf) {
  const out = [];
  let keep = false;
  for (const l of lines) {
    const t = timeOf(l);
    if (t !== null) keep = t >= since;
    if (keep) out.push(l);
  }
  return out;
}

// Leaves room under the control channel's 1 MiB frame for JSON escaping.
const REPLY_BYTES = 600 * 1024;
const ISO_RE = /^(\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z)/;

/**
 * How to read the time of a line written with these log settings (settings.js), or null
 * when such lines carry none.
 */
export function timeReader(s) {
  if (s.type === 'json' || s.type === 'pm2-json') {
    // json: pino's epoch ms (or an app's own time); pm2-json: timestamp, in log_date_format when set
    const key = s.type === 'json' ? 'time' : 'timestamp';
    const parse = s.type === 'pm2-json' && s.date && s.date !== 'ISO' ? compileParser(s.date) : (v) => Date.parse(v);
    return (line) => {
      try {
        const t = JSON.parse(line)[key];
        const ms = typeof t === 'number' ? t : typeof t === 'string' ? parse(t) : null;
        return Number.isFinite(ms) ? ms : null;
      } catch {
        return null;
      }
    };
  }
  if (s.date === 'ISO') {
    return (line) => {
      const m = ISO_RE.exec(line);
      return m ? Date.parse(m[1]) : null;
    };
  }
  if (s.date) return compileParser(s.date);
  return null;
}

/**
 * The last lines of each file, the reply's byte budget shared between them.
 * @param {{path: string}[]} files
 * @param {object} o
 * @param {number} [o.lines]  per file (default 20; with `since` and no lines: up to 10000)
 * @param {number} [o.since]  epoch ms: only lines at or after it
 * @param {(file: object) => ((line: string) => number|null)|null} o.timeOf  how to date a file's lines
 * @param {Map<string, number>} [o.ends]  path -> offset where the tail ends (where a follow begins)
 * @param {(file: object) => ({ino: number, from: number, at: number}|null)} [o.markOf]  where (and
 *   when) the app's current workers began writing a file
 * @returns {Promise<object[]>}  each file with its `lines`, and with a mark found, `started` (epoch
 *   ms) and `earlier`: how many of its lines, from the first, were written before then
 */
export async function tailFiles(files, { lines: asked, since, timeOf, ends, markOf }) {
  const lines = asked ?? 20;
  const budget = Math.floor(REPLY_BYTES / Math.max(files.length, 1));
  const tails = await Promise.all(files.map(async (f) => {
    const opts = { lines: since !== undefined && asked === undefined ? 10000 : lines, maxBytes: budget, since, timeOf: timeOf(f) };
    const mark = markOf?.(f) ?? null;
    let { lines: got, wantsOlder, earlier } = await readTail(f.path, { ...opts, end: ends?.get(f.path), mark });
    // What the current file lacks comes from the rotated ones, newest first (gzipped too).
    for (const older of wantsOlder ? await rotatedNewestFirst(f.path) : []) {
      const room = { lines: opts.lines - got.length, maxBytes: budget - byteLength(got) };
      if (room.lines <= 0 || room.maxBytes <= 0) break;
      const before = await readTail(older, { ...opts, ...room });
      got = [...before.lines, ...got];
      if (earlier !== undefined) earlier += before.lines.length; // rotated before the workers started
      if (!before.wantsOlder) break;
    }
    return earlier === undefined || !mark ? { lines: got } : { lines: got, earlier, started: mark.at }; // earlier comes with a mark
  }));
  return files.map((f, i) => ({ ...f, ...tails[i] }));
}

const byteLength = (lines) => lines.reduce((n, l) => n + l.length + 1, 0);

/** The rotated files of `file` (file.N, dated ones, .gz or not), newest first, at most MAX_ROTATED. */
async function rotatedNewestFirst(file) {
  const all = await rotatedFiles(file);
  const stats = await Promise.all(all.map((p) => fsp.stat(p).then((st) => ({ p, at: st.mtimeMs }), () => null)));
  return stats.filter((x) => x !== null).sort((a, b) => b.at - a.at || rank(a.p) - rank(b.p)).slice(0, MAX_ROTATED).map((x) => x.p);
}

/** For files written in the same millisecond: file.1 is newer than file.2. */
const rank = (p) => Number(/\.(\d+)(\.gz)?$/.exec(p)?.[1] ?? 0);
