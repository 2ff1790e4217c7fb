// Helpers for the log tests: read every line of a log file and its rotated files
// (gunzipping .gz), check numbered lines from test/fixtures/apps/log-writer.js, and run
// `super logs -f` as a user would, reading its output as it comes.
import fs from 'node:fs';
import path from 'node:path';
import zlib from 'node:zlib';
import { spawn } from 'node:child_process';
import { SUPER } from '../helpers/harness.js';

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

/**
 * Spawns `super logs ...args` and collects its stdout lines. `until(pred)` resolves when a
 * line matching pred was printed; `stop()` sends SIGINT and resolves with the exit.
 */
export function followCli(box, args, t) {
  const child = spawn(process.execPath, [SUPER, 'logs', ...args], { env: { ...process.env, SUPER_HOME: box.home, NO_COLOR: '1' }, stdio: ['ignore', 'pipe', 'pipe'] });
  const out = [];
  let stderr = '';
  let rest = '';
  const waiters = new Set();
  child.stdout.on('data', (d) => {
    const parts = (rest + d).split('\n');
    rest = parts.pop();
    for (const l of parts) {
      out.push(l);
      for (const w of waiters) if (w.pred(l)) w.resolve(l);
    }
  });
  child.stderr.on('data', (d) => (stderr += d));
  const exited = new Promise((resolve) => child.on('close', (code, signal) => resolve({ code, signal })));
  t.after(() => child.kill('SIGKILL'));
  return {
    out,
    get stderr() {
      return stderr;
    },
    until(pred, timeout = 30000) {
      const hit = out.find(pred);
      if (hit) return Promise.resolve(hit);
      return new Promise((resolve, reject) => {
        const w = { pred, resolve: (l) => { clearTimeout(timer); waiters.delete(w); resolve(l); } };
        const timer = setTimeout(() => {
          waiters.delete(w);
          reject(new Error(`timed out waiting for a line; got ${out.length} lines, last: ${out.slice(-3).join(' / ')}; stderr: ${stderr}`));
        }, timeout);
        waiters.add(w);
      });
    },
    async stop() {
      child.kill('SIGINT');
      return exited;
    },
    exited,
  };
}

export { eventually } from '../helpers/wait.js';
