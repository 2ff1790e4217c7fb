// The last lines of a log file, read backwards in chunks (async, bounded): for `super logs`.
import fsp from 'node:fs/promises';

const CHUNK = 64 * 1024;
const MAX_SCAN = 8 * 1024 * 1024; // never read more than this much of a file for one request

/**
 * @param {string} file
 * @param {object} o
 * @param {number} o.lines  how many lines at most (the last ones)
 * @param {number} o.maxBytes  at most this much text in the result (the last lines win)
 * @param {number} [o.since]  epoch ms: only lines at or after it (needs o.timeOf)
 * @param {(line: string) => number|null} [o.timeOf]  the time of a line, null when it has none
 * @param {number} [o.end]  read up to this offset (default: the current size)
 * @returns {Promise<string[]>}
 */
export async function tailLines(file, { lines, maxBytes, since, timeOf, end }) {
  let fh;
  try {
    fh = await fsp.open(file, 'r');
  } catch (err) {
    if (err.code === 'ENOENT') return [];
    throw err;
  }
  try {
    const stop = end ?? (await fh.stat()).size;
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
    let text = Buffer.concat(chunks).toString('utf8');
    if (pos > 0) text = text.slice(text.indexOf('\n') + 1); // a partial first line
    const all = text.split('\n');
    if (all[all.length - 1] === '') all.pop();
    let picked = since === undefined ? all : sinceFilter(all, since, timeOf);
    picked = picked.slice(-lines);
    let bytes = 0;
    let from = picked.length;
    while (from > 0 && bytes + picked[from - 1].length + 1 <= maxBytes) bytes += picked[--from].length + 1;
    return picked.slice(from);
  } finally {
    await fh.close();
  }
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
export function sinceFilter(lines, since, timeOf) {
  const out = [];
  let keep = false;
  for (const l of lines) {
    const t = timeOf(l);
    if (t !== null) keep = t >= since;
    if (keep) out.push(l);
  }
  return out;
}
