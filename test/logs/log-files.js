// Helpers for the log tests: read every line of a log file and its rotated files
// (gunzipping .gz) and check numbered lines from test/fixtures/apps/log-writer.js.
import fs from 'node:fs';
import path from 'node:path';
import zlib from 'node:zlib';

/** Lines of `file` and of every `file.N` / `file.N.gz` next to it (and of `extra` files). */
export function allLines(file, extra = []) {
  const dir = path.dirname(file);
  const base = path.basename(file);
  const names = fs.readdirSync(dir).filter((n) => n === base || (n.startsWith(`${base}.`) && /^\.\d+(\.gz)?$/.test(n.slice(base.length))));
  const files = [...names.map((n) => path.join(dir, n)), ...extra];
  const lines = [];
  for (const f of files) {
    let buf = fs.readFileSync(f);
    if (f.endsWith('.gz')) buf = zlib.gunzipSync(buf);
    const text = buf.toString('utf8');
    if (!text) continue;
    assert(text.endsWith('\n'), `${f} ends with a partial line`);
    lines.push(...text.slice(0, -1).split('\n'));
  }
  return { lines, files };
}

function assert(ok, msg) {
  if (!ok) throw new Error(msg);
}

const LINE = /^(\w+) w(\d+) (\d{7}) x+$/;

/**
 * Checks numbered lines: returns {count, bad (lines that are not exactly one whole line),
 * missing (per worker, of `perWorker`), dups}.
 */
export function checkNumbered(lines, { tag = 'L', workers, perWorker, padLen = 40 }) {
  const seen = Array.from({ length: workers }, () => new Uint8Array(perWorker));
  let bad = 0;
  let dups = 0;
  let count = 0;
  for (const l of lines) {
    const m = LINE.exec(l);
    if (!m || m[1] !== tag || l.length !== tag.length + 2 + m[2].length + 1 + 7 + 1 + padLen) {
      bad++;
      continue;
    }
    const w = Number(m[2]);
    const s = Number(m[3]);
    if (w >= workers || s >= perWorker) {
      bad++;
      continue;
    }
    if (seen[w][s]) dups++;
    seen[w][s] = 1;
    count++;
  }
  let missing = 0;
  for (const arr of seen) for (const v of arr) if (!v) missing++;
  return { count, bad, missing, dups };
}
