// `super logs -f` on the daemon side: one follower per reader (a control connection),
// with its own cursor per file. Every TICK_MS while lines come, it reads what was appended,
// in chunks (never per line), cuts each chunk at its last newline and hands it to its sink
// as one item:
//   {app, slot, stream, text}        text = whole lines
//   {app, slot, stream, skipped: N}  N lines were not sent
// Backpressure: while the sink has more than HIGH_WATER bytes queued (its reader reads
// slower than the app writes), chunks are counted instead of sent, and the reader is told
// how many lines it skipped. Memory is bounded by HIGH_WATER + one chunk per file.
// Like `tail -F`, a cursor drains a rotated file to its end, then moves to the new file.
// Idle files are not polled every TICK_MS: after a tick that found nothing the next waits
// twice as long, up to IDLE_MS, and an inotify watch on each file (fs.watch, only while
// idle: a busy log would fire it at every write) wakes the follower at its next line.
// Polling two stats per file ten times a second was 0.8 % of a core for the daemon of 100
// workers with a `super dashboard` page open (it follows every app's logs).
import fs from 'node:fs';
import fsp from 'node:fs/promises';
import { openForReading } from './open-for-reading.js';

const TICK_MS = 100;
const IDLE_MS = 1000; // the longest wait between two reads of idle files (the watch missed nothing)
const CHUNK = 256 * 1024;
const BUDGET = 4 * 1024 * 1024; // per file and tick
const HIGH_WATER = 1024 * 1024;

function countLines(buf) {
  let n = 0;
  for (let i = buf.indexOf(10); i !== -1; i = buf.indexOf(10, i + 1)) n++;
  return n;
}

export class LogFollower {
  /**
   * @param {object} o
   * @param {{send: (data: object) => void, backlog: () => number, open: () => boolean}} o.sink  where
   *   lines go: send one item, bytes queued and not yet read, whether anyone still reads
   * @param {() => Array<{app: string, slot: number|null, stream: string, path: string}>} o.files  the files to follow now
   */
  constructor({ sink, files }) {
    this.sink = sink;
    this.files = files;
    this.cursors = new Map();
    this.timer = null;
    this.busy = false;
    this.stopped = false;
    this.wait = TICK_MS; // until the next tick: TICK_MS while lines come, up to IDLE_MS
    this.watchers = new Map(); // path -> fs.FSWatcher, while idle
    this.wake = () => this.#wake();
    this.woken = false;
  }

  /** Opens a cursor at the end of each file; returns path -> offset (where the tail ends). */
  async start() {
    const ends = new Map();
    await Promise.all(this.files().map(async (f) => {
      const c = await this.#open(f, true);
      if (c) ends.set(f.path, c.pos);
    }));
    return ends;
  }

  run() {
    if (this.stopped || this.timer) return;
    this.#arm(TICK_MS);
  }

  stop() {
    this.stopped = true;
    clearTimeout(this.timer ?? undefined);
    this.#unwatch();
    for (const c of this.cursors.values()) c.fh.close().catch(() => {});
    this.cursors.clear();
  }

  #arm(ms) {
    this.timer = setTimeout(() => this.#tick(), ms);
  }

  /** A watched file changed while idle: read now, and poll at TICK_MS again. */
  #wake() {
    this.#unwatch();
    this.woken = true; // a tick running now may have read before the change: the next comes soon
    if (this.stopped || this.busy) return;
    clearTimeout(this.timer ?? undefined);
    this.wait = TICK_MS;
    this.#arm(0);
  }

  #watch() {
    for (const path of this.cursors.keys()) {
      if (this.watchers.has(path)) continue;
      try {
        this.watchers.set(path, fs.watch(path, { persistent: false }, this.wake).on('error', () => {}));
      } catch {
        // cannot watch it (gone, a limit): the poll at IDLE_MS still reads it
      }
    }
  }

  #unwatch() {
    for (const w of this.watchers.values()) w.close();
    this.watchers.clear();
  }

  async #open(f, atEnd) {
    try {
      const fh = await openForReading(f.path);
      const st = await fh.stat();
      if (this.stopped) {
        await fh.close();
        return null;
      }
      const c = { ...f, fh, ino: st.ino, pos: atEnd ? st.size : 0, skipped: 0 };
      this.cursors.get(f.path)?.fh.close().catch(() => {});
      this.cursors.set(f.path, c);
      return c;
    } catch {
      return null; // not created yet: picked up at a later tick
    }
  }

  async #tick() {
    if (this.busy || this.stopped) return;
    this.busy = true;
    this.woken = false;
    let read = false;
    try {
      for (const f of this.files()) {
        // A file that appears after the follow began (a new slot) is read from its start.
        const c = this.cursors.get(f.path) ?? (await this.#open(f, false));
        if (c && !this.stopped && (await this.#pump(c))) read = true;
      }
    } catch {
      // a file vanished mid-read: the next tick reopens it
      read = true;
    } finally {
      this.busy = false;
    }
    if (this.stopped) return;
    this.wait = read || this.woken ? TICK_MS : Math.min(this.wait * 2, IDLE_MS);
    // Watched only while idle. A change between the read above and the watch waits for the
    // next tick, at most 2 x the wait before: a wait grows only after one found nothing.
    if (this.wait > TICK_MS) this.#watch();
    else this.#unwatch();
    this.#arm(this.wait);
  }

  /** Reads what `c`'s file gained; true when it had something (lines, a rotation, a truncation). */
  async #pump(c) {
    if (c.skipped && this.sink.backlog() <= HIGH_WATER) this.#send(c, { skipped: c.skipped });
    let budget = BUDGET;
    let switched = false;
    let moved = false;
    while (budget > 0 && !this.stopped) {
      const { size } = await c.fh.stat();
      if (size < c.pos) {
        c.pos = 0; // truncated (super flush)
        moved = true;
      }
      if (size > c.pos) {
        const len = Math.min(CHUNK, size - c.pos, budget);
        const buf = Buffer.allocUnsafe(len);
        const { bytesRead } = await c.fh.read(buf, 0, len, c.pos);
        const last = buf.lastIndexOf(10, bytesRead - 1);
        // no newline: wait for the rest of the line, unless it is longer than a chunk
        const take = last === -1 ? (bytesRead === CHUNK ? bytesRead : 0) : last + 1;
        if (take === 0) return moved;
        c.pos += take;
        budget -= take;
        moved = true;
        this.#deliver(c, buf.subarray(0, take));
        continue;
      }
      if (switched) return true;
      // At the end: has the path moved on to a new file (rotation, external logrotate)?
      const st = await fsp.stat(c.path).catch(() => null);
      if (!st || st.ino === c.ino) return moved;
      const next = await this.#open(c, false);
      if (!next) return moved;
      c = next;
      switched = true;
    }
    return true; // the budget is spent: more is waiting
  }

  #deliver(c, buf) {
    if (!this.sink.open()) return;
    if (this.sink.backlog() > HIGH_WATER) {
      c.skipped += countLines(buf);
      return;
    }
    if (c.skipped) this.#send(c, { skipped: c.skipped });
    this.#send(c, { text: buf.toString('utf8') });
  }

  #send(c, what) {
    if (what.skipped) c.skipped = 0;
    if (this.sink.open()) this.sink.send({ app: c.app, slot: c.slot, stream: c.stream, ...what });
  }
}
