// CPU % and resident memory of each worker's whole process tree (the worker and every
// process it started), read from /proc by the daemon.
//
// Why this way (docs/measurements.md, cost of metrics: 50 workers polled once a second):
//   fs.promises.readFile of stat+status   1.8-2.4 % CPU, 12-15 ms of async work per poll
//   pidusage 4.1                          0.5 % CPU, ~3 ms
//   cached fds + readSync at position 0   0.2 % CPU (baseline), 1.2-1.7 ms
// so each process's /proc/<pid>/stat (and its children list) is opened once and re-read
// with pread, and the work is cut into chunks with a setImmediate between them: the
// daemon accepts every connection of every app and must never stall for long.
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

export class ProcessSampler {
  constructor() {
    this.fds = new Map(); // path -> fd, opened once, closed when the process is gone
    this.last = new Map(); // leader pid -> {ticks, at}
    this.members = new Map(); // leader pid -> Set of pids of its tree at the last sample
    this.page = linux ? pageSize() : 4096;
  }

  /** Reads a /proc file through its cached fd; null when the process is gone. */
  #read(path) {
    let fd = this.fds.get(path);
    try {
      if (fd === undefined) {
        fd = fs.openSync(path, 'r');
        this.fds.set(path, fd);
      }
      const n = fs.readSync(fd, buf, 0, buf.length, 0);
      return buf.toString('latin1', 0, n);
    } catch {
      if (fd !== undefined) this.#close(path);
      return null;
    }
  }

  #close(path) {
    try {
      fs.closeSync(this.fds.get(path));
    } catch {}
    this.fds.delete(path);
  }

  /** {ticks, rss (bytes), processes} of the tree rooted at `pid`; null if `pid` is gone. */
  #tree(pid) {
    let ticks = 0;
    let rss = 0;
    let processes = 0;
    const seen = new Set();
    const queue = [pid];
    while (queue.length && processes < MAX_TREE) {
      const p = queue.shift();
      const stat = this.#read(`/proc/${p}/stat`);
      if (stat === null) {
        this.#forgetPid(p);
        if (p === pid) return null;
        continue;
      }
      // Fields after the ")" that closes comm (comm may contain spaces and parentheses).
      const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      ticks += Number(f[11]) + Number(f[12]) + Number(f[13]) + Number(f[14]);
      rss += Number(f[21]) * this.page;
      processes++;
      seen.add(p);
      const children = this.#read(`/proc/${p}/task/${p}/children`);
      if (children) for (const c of children.trim().split(' ')) if (c) queue.push(Number(c));
    }
    // Children gone since the last sample: their fds are closed now, not leaked.
    for (const p of this.members.get(pid) ?? []) if (!seen.has(p)) this.#forgetPid(p);
    this.members.set(pid, seen);
    return { ticks, rss, processes };
  }

  #forgetPid(pid) {
    for (const path of [`/proc/${pid}/stat`, `/proc/${pid}/task/${pid}/children`]) if (this.fds.has(path)) this.#close(path);
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
      for (const pid of leaders.slice(i, i + CHUNK)) {
        const tree = this.#tree(pid);
        if (!tree) {
          this.forget(pid);
          out.set(pid, { cpu: null, memory: null, processes: 0, cpuTicks: 0 });
          continue;
        }
        const prev = this.last.get(pid) ?? { ticks: 0, at: startedAt.get(pid) ?? now };
        const elapsed = now - prev.at;
        const used = Math.max(0, tree.ticks - prev.ticks); // a child reparented away lowers the sum
        const cpu = elapsed > 0 ? (used * (1000 / TICKS_PER_SEC) * 100) / elapsed : 0;
        this.last.set(pid, { ticks: tree.ticks, at: now });
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
    return this.fds.size;
  }

  close() {
    for (const path of [...this.fds.keys()]) this.#close(path);
    this.last.clear();
    this.members.clear();
  }
}
