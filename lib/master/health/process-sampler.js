// CPU % and resident memory of each worker's whole process tree (the worker and every
// process it started), read from /proc by the daemon.
//
// Why this way (docs/measurements.md, cost of metrics: 50 workers polled once a second):
//   fs.promises.readFile of stat+status   1.8-2.4 % CPU, 12-15 ms of async work per poll
//   pidusage 4.1                          0.5 % CPU, ~3 ms
//   cached fds + readSync at position 0   0.2 % CPU (baseline), 1.2-1.7 ms
// so each process's /proc/<pid>/stat (and its children list) is opened once and re-read
// with pread, and the work is cut into chunks with a setImmediate between them: the
// daemon accepts every connection of every app and must never stall for long. The bytes
// are parsed where they were read (no string, no split array): with a page of `super
// dashboard` or `super monit` open this runs for every worker every interval, and at 100
// workers the strings, arrays and per-path Map keys were a third of the daemon's work.
//
// CPU of the tree = delta of Σ(utime+stime+cutime+cstime) over its live processes: a child
// that exits is reaped by its parent, whose cutime/cstime then carry its whole cost, so the
// sum stays continuous and short-lived children are counted too. Memory = Σ RSS (pages
// shared between the processes are counted once per process, as `ps` would).
// Not Linux: every value is null.
import fs from 'node:fs';

export const TICKS_PER_SEC = 100; // USER_HZ: 100 on every Linux architecture Node supports
const CHUNK = 16; // worker trees read per turn of the event loop
const MAX_TREE = 256; // processes counted per worker, a bound against fork bombs
const buf = Buffer.alloc(4096);
const linux = process.platform === 'linux';

/** Bytes per page: RSS in /proc/<pid>/stat is in pages (4 KiB on x86, up to 64 KiB on arm64). */
function pageSize() {
  try {
    const pages = Number(fs.readFileSync('/proc/self/statm', 'utf8').split(' ')[1]);
    const ratio = process.memoryUsage.rss() / pages;
    return 2 ** Math.round(Math.log2(ratio));
  } catch {
    return 4096;
  }
}

/**
 * utime+stime+cutime+cstime (clock ticks) and RSS (pages) from the bytes of a
 * /proc/<pid>/stat, read in place: no string, no array (this runs for every worker every
 * interval while someone watches). Null when the bytes are not a stat line.
 * @param {Buffer} b  @param {number} n  bytes read
 * @returns {{ticks: number, rssPages: number}|null}
 */
export function parseStat(b, n) {
  // The fields start after the ")" that closes comm (comm may hold spaces and parentheses).
  if (n <= 0) return null;
  let i = b.lastIndexOf(0x29, n - 1);
  if (i === -1) return null;
  i += 2; // ") "
  let field = 0; // index of the field after comm: 0 is the state
  let ticks = 0;
  let rssPages = -1;
  while (i < n && field <= 21) {
    if (field === 11 || field === 12 || field === 13 || field === 14 || field === 21) {
      let v = 0;
      let sign = 1;
      if (b[i] === 0x2d) {
        sign = -1;
        i++;
      }
      while (i < n && b[i] >= 0x30 && b[i] <= 0x39) v = v * 10 + (b[i++] - 0x30);
      if (field === 21) rssPages = v * sign;
      else ticks += v * sign;
    } else while (i < n && b[i] !== 0x20) i++;
    i++; // the space
    field++;
  }
  return rssPages < 0 ? null : { ticks, rssPages };
}

/** Calls `each(pid)` for every pid of the space-separated list in the first `n` bytes of `b`. */
export function forEachPid(b, n, each) {
  let v = 0;
  let digits = false;
  for (let i = 0; i < n; i++) {
    const c = b[i];
    if (c >= 0x30 && c <= 0x39) {
      v = v * 10 + (c - 0x30);
      digits = true;
    } else if (digits) {
      each(v);
      v = 0;
      digits = false;
    }
  }
  if (digits) each(v);
}

/** The /proc files of one process, opened once and re-read with pread. */
class ProcFiles {
  /** @param {number} pid */
  constructor(pid) {
    this.pid = pid;
    this.stat = -1; // fd, -1: not open yet
    this.children = -1;
  }

  /** Bytes of its stat (in `buf`), -1 when the process is gone. */
  readStat() {
    if (this.stat === -1) this.stat = openOrNull(`/proc/${this.pid}/stat`);
    return this.stat === -1 ? -1 : readOrClose(this, 'stat');
  }

  /** Bytes of its children list (in `buf`), 0 when it has none or is gone. */
  readChildren() {
    if (this.children === -1) this.children = openOrNull(`/proc/${this.pid}/task/${this.pid}/children`);
    return this.children === -1 ? 0 : Math.max(0, readOrClose(this, 'children'));
  }

  close() {
    for (const key of /** @type {const} */ (['stat', 'children'])) {
      if (this[key] === -1) continue;
      try {
        fs.closeSync(this[key]);
      } catch {}
      this[key] = -1;
    }
  }

  get open() {
    return Number(this.stat !== -1) + Number(this.children !== -1);
  }
}

function openOrNull(path) {
  try {
    return fs.openSync(path, 'r');
  } catch {
    return -1;
  }
}

/** pread at 0 into `buf`; a failed read (the process is gone) closes the file: -1. */
function readOrClose(files, key) {
  try {
    return fs.readSync(files[key], buf, 0, buf.length, 0);
  } catch {
    try {
      fs.closeSync(files[key]);
    } catch {}
    files[key] = -1;
    return -1;
  }
}

export class ProcessSampler {
  constructor() {
    this.files = new Map(); // pid -> ProcFiles, closed when the process is gone
    this.last = new Map(); // leader pid -> {ticks, at}
    this.members = new Map(); // leader pid -> pids of its other processes at the last sample
    this.page = linux ? pageSize() : 4096;
  }

  #filesOf(pid) {
    let f = this.files.get(pid);
    if (!f) this.files.set(pid, (f = new ProcFiles(pid)));
    return f;
  }

  /** {ticks, rss (bytes), processes} of the tree rooted at `pid`; null if `pid` is gone. */
  #tree(pid) {
    let ticks = 0;
    let rss = 0;
    let processes = 0;
    /** @type {number[]|null} */
    let queue = null; // the tree's other processes, found from the children lists
    /** @type {Set<number>|null} */
    let seen = null;
    for (let p = pid, next = 0; p !== undefined && processes < MAX_TREE; p = queue?.[next++]) {
      const files = this.#filesOf(p);
      const n = files.readStat();
      const stat = n === -1 ? null : parseStat(buf, n);
      if (stat === null) {
        this.#forgetPid(p);
        if (p === pid) return null;
        continue;
      }
      ticks += stat.ticks;
      rss += stat.rssPages * this.page;
      processes++;
      if (p !== pid) (seen ??= new Set()).add(p);
      const c = files.readChildren();
      if (c > 0) forEachPid(buf, c, (child) => (queue ??= []).push(child));
    }
    // Children gone since the last sample: their fds are closed now, not leaked.
    for (const p of this.members.get(pid) ?? []) if (!seen?.has(p)) this.#forgetPid(p);
    if (seen) this.members.set(pid, seen);
    else this.members.delete(pid);
    return { ticks, rss, processes };
  }

  #forgetPid(pid) {
    this.files.get(pid)?.close();
    this.files.delete(pid);
  }

  /**
   * Samples the trees of `leaders` (worker pids).
   * @param {number[]} leaders
   * @param {Map<number, number>} [startedAt]  pid -> ms epoch, for the CPU % of a first sample
   * @returns {Promise<Map<number, {cpu: number|null, memory: number|null, processes: number, cpuTicks: number}>>}
   *   cpuTicks: clock ticks (1/100 s) the tree used since the previous sample (since it started, at the first)
   */
  async sample(leaders, startedAt = new Map()) {
    const out = new Map();
    if (!linux) {
      for (const pid of leaders) out.set(pid, { cpu: null, memory: null, processes: 0, cpuTicks: 0 });
      return out;
    }
    for (let i = 0; i < leaders.length; i += CHUNK) {
      if (i > 0) await new Promise((r) => setImmediate(r));
      const now = Date.now();
      for (let j = i; j < Math.min(i + CHUNK, leaders.length); j++) {
        const pid = leaders[j];
        const tree = this.#tree(pid);
        if (!tree) {
          this.forget(pid);
          out.set(pid, { cpu: null, memory: null, processes: 0, cpuTicks: 0 });
          continue;
        }
        let prev = this.last.get(pid);
        if (!prev) this.last.set(pid, (prev = { ticks: 0, at: startedAt.get(pid) ?? now }));
        const elapsed = now - prev.at;
        const used = Math.max(0, tree.ticks - prev.ticks); // a child reparented away lowers the sum
        const cpu = elapsed > 0 ? (used * (1000 / TICKS_PER_SEC) * 100) / elapsed : 0;
        prev.ticks = tree.ticks;
        prev.at = now;
        out.set(pid, { cpu: Math.round(cpu * 10) / 10, memory: tree.rss, processes: tree.processes, cpuTicks: used });
      }
    }
    return out;
  }

  /** Drops what is cached for a worker that exited (its children's fds go as they fail). */
  forget(pid) {
    this.last.delete(pid);
    for (const p of this.members.get(pid) ?? []) this.#forgetPid(p);
    this.members.delete(pid);
    this.#forgetPid(pid);
  }

  /** Number of /proc files held open (for the bench and tests). */
  get openFiles() {
    let n = 0;
    for (const f of this.files.values()) n += f.open;
    return n;
  }

  close() {
    for (const f of this.files.values()) f.close();
    this.files.clear();
    this.last.clear();
    this.members.clear();
  }
}
