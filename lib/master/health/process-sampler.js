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
//
// A worker whose agent reports once a second (someone watches) says its own CPU time and
// RSS in each report: the same kernel counters its stat line holds. For such a worker that
// has no child now, a sample takes the agent's figures plus what its children cost at the
// last full read (cutime/cstime), and reads only its children list (2 µs of kernel time
// against 7-8 µs for a stat line that sums Node's ~10 threads): the stat line is read at
// the first sample, whenever it has children, every CATCH_UP samples (the CPU of children
// it started and reaped since), and whenever no report came since the last sample (a
// blocked loop: max_memory_restart and the figures stay right for a hung worker).
// Not Linux: every value is null.
import fs from 'node:fs';

export const TICKS_PER_SEC = 100; // USER_HZ: 100 on every Linux architecture Node supports
const CHUNK = 16; // worker trees read per turn of the event loop
const MAX_TREE = 256; // processes counted per worker, a bound against fork bombs
const CATCH_UP = 10; // a worker sampled from its agent's figures: its whole tree every this many samples
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
 * utime+stime+cutime+cstime (clock ticks), the process's own utime+stime, and RSS (pages)
 * from the bytes of a /proc/<pid>/stat, read in place: no string, no array (this runs for
 * every worker every interval while someone watches). Null when the bytes are not a stat line.
 * @param {Buffer} b  @param {number} n  bytes read
 * @returns {{ticks: number, selfTicks: number, rssPages: number}|null}
 */
export function parseStat(b, n) {
  // The fields start after the ")" that closes comm (comm may hold spaces and parentheses).
  if (n <= 0) return null;
  let i = b.lastIndexOf(0x29, n - 1);
  if (i === -1) return null;
  i += 2; // ") "
  let field = 0; // index of the field after comm: 0 is the state
  let ticks = 0;
  let selfTicks = 0;
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
      if (field === 12) selfTicks = ticks;
    } else while (i < n && b[i] !== 0x20) i++;
    i++; // the space
    field++;
  }
  return rssPages < 0 ? null : { ticks, selfTicks, rssPages };
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

/**
 * A worker's own CPU time and RSS as its agent measured them (lib/worker/metrics.cjs).
 * user, system: µs since it started (process.cpuUsage()); at: when the report came (ms epoch)
 * @typedef {{user: number, system: number, rss: number, at: number}} AgentFigures
 */

/**
 * Moves a worker's last figures to `ticks` (its tree's CPU, whole clock ticks) taken `at`.
 * `exact`: read from /proc now. An agent's figures lack what children started since the last
 * full read: a figure below the last one is not taken (the next full read gives the time
 * since), while a full read below it (a child reparented away) is.
 */
function step(last, ticks, at, memory, processes, exact) {
  const elapsed = at - last.at;
  const used = Math.max(0, ticks - last.ticks);
  const cpu = elapsed > 0 ? (used * (1000 / TICKS_PER_SEC) * 100) / elapsed : 0;
  if (exact || ticks > last.ticks) last.ticks = ticks;
  last.at = at;
  return { cpu: Math.round(cpu * 10) / 10, memory, processes, cpuTicks: used };
}

export class ProcessSampler {
  constructor() {
    this.files = new Map(); // pid -> ProcFiles, closed when the process is gone
    this.last = new Map(); // leader pid -> {ticks, at, childTicks, untilFull}
    this.members = new Map(); // leader pid -> pids of its other processes at the last sample
    this.page = linux ? pageSize() : 4096;
  }

  #filesOf(pid) {
    let f = this.files.get(pid);
    if (!f) this.files.set(pid, (f = new ProcFiles(pid)));
    return f;
  }

  /**
   * {ticks, selfTicks, rss (bytes), processes} of the tree rooted at `pid`; null if `pid`
   * is gone. selfTicks: the leader's own utime+stime (ticks less it: what its children cost).
   */
  #tree(pid) {
    let ticks = 0;
    let selfTicks = 0;
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
      if (p === pid) selfTicks = stat.selfTicks;
      else (seen ??= new Set()).add(p);
      const c = files.readChildren();
      if (c > 0) forEachPid(buf, c, (child) => (queue ??= []).push(child));
    }
    // Children gone since the last sample: their fds are closed now, not leaked.
    for (const p of this.members.get(pid) ?? []) if (!seen?.has(p)) this.#forgetPid(p);
    if (seen) this.members.set(pid, seen);
    else this.members.delete(pid);
    return { ticks, selfTicks, rss, processes };
  }

  #forgetPid(pid) {
    this.files.get(pid)?.close();
    this.files.delete(pid);
  }

  /**
   * Samples the trees of `leaders` (worker pids).
   * @param {number[]} leaders
   * @param {Map<number, number>} [startedAt]  pid -> ms epoch, for the CPU % of a first sample
   * @param {(pid: number) => AgentFigures|null} [agentOf]  a worker's own figures from its
   *   agent's last report, null when it gives none (not a Node worker, an older agent)
   * @returns {Promise<Map<number, {cpu: number|null, memory: number|null, processes: number, cpuTicks: number}>>}
   *   cpuTicks: clock ticks (1/100 s) the tree used since the previous sample (since it started, at the first)
   */
  async sample(leaders, startedAt = new Map(), agentOf = () => null) {
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
        const prev = this.last.get(pid);
        const agent = prev ? agentOf(pid) : null;
        const cost = agent && this.#fromAgent(pid, prev, agent);
        if (cost) {
          out.set(pid, cost);
          continue;
        }
        const tree = this.#tree(pid);
        if (!tree) {
          this.forget(pid);
          out.set(pid, { cpu: null, memory: null, processes: 0, cpuTicks: 0 });
          continue;
        }
        const last = prev ?? { ticks: 0, at: startedAt.get(pid) ?? now, childTicks: 0, untilFull: 0 };
        if (!prev) this.last.set(pid, last);
        // The next full read of a worker sampled from its reports: spread over CATCH_UP samples.
        last.untilFull = prev ? CATCH_UP : 1 + (pid % CATCH_UP);
        last.childTicks = tree.ticks - tree.selfTicks;
        out.set(pid, step(last, tree.ticks, now, tree.rss, tree.processes, true));
      }
    }
    return out;
  }

  /**
   * The sample of a worker from its agent's figures, with the CPU its children cost at the
   * last full read; null when its tree must be read (see the top of the file).
   */
  #fromAgent(pid, prev, agent) {
    if (agent.at <= prev.at || --prev.untilFull <= 0) return null;
    if (this.#filesOf(pid).readChildren() > 0) return null;
    // In ticks as its stat line says them (each of utime and stime cut to whole ticks, from
    // the same kernel counters): a full read after this one is never below it.
    const perTick = 1e6 / TICKS_PER_SEC;
    const ticks = Math.floor(agent.user / perTick) + Math.floor(agent.system / perTick) + prev.childTicks;
    return step(prev, ticks, agent.at, agent.rss, 1, false);
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
