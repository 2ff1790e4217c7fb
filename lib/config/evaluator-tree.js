// The bounds of the process that evaluates a JS/TS ecosystem file, and of everything it
// starts (js-config.js): its heap alone is not its memory (Buffers, and the processes it
// spawns, live outside V8's heap), and its process group is not all it can start (a
// `setsid` or detached child leaves it). So, while it runs:
//  - the tree (the evaluator and its descendants, read from /proc every POLL_MS, at most
//    MAX_TREE) is watched: past `maxRss` resident bytes together it is ended;
//  - every process seen in it is recorded with its start time;
// and when the evaluation ends, each recorded process still running (same start time, so
// never a pid reused meanwhile) and the group it leads is killed, then every process whose
// environment still carries the evaluation's marker (one that left the tree between two
// polls, its parent gone: it inherited the marker). The evaluator itself also runs under
// RLIMIT_DATA (js-config.js), the kernel's bound on what one process allocates.
import { randomBytes } from 'node:crypto';
import { descendants, processInfo, processesWithEnv } from '../process-tree.js';

const POLL_MS = 50;
const MAX_TREE = 256;
const RESCAN_MS = [100, 1000];

/** The environment entry that marks the evaluator's processes: `SUPERD_CONFIG_EVAL=<random>`. */
export function evaluationMarker() {
  return ['SUPERD_CONFIG_EVAL', randomBytes(12).toString('hex')];
}

export class EvaluatorTree {
  #root;
  #marker;
  #maxRss;
  #onOver;
  #seen = new Map(); // pid -> {start, leads}
  #timer;

  /**
   * @param {number} pid  the evaluator
   * @param {{marker: string[], maxRss: number, onOver: (rss: number) => void}} o  marker: [name, value]
   */
  constructor(pid, { marker, maxRss, onOver }) {
    this.#root = pid;
    this.#marker = `${marker[0]}=${marker[1]}`;
    this.#maxRss = maxRss;
    this.#onOver = onOver;
    this.#timer = setInterval(() => this.#poll(), POLL_MS);
    this.#timer.unref();
    this.#poll();
  }

  #poll() {
    const rss = this.#walk();
    if (rss > this.#maxRss) this.#onOver(rss);
  }

  /** Records the tree's processes; returns their resident bytes together. */
  #walk() {
    let rss = processInfo(this.#root)?.rss ?? 0;
    for (const pid of descendants(this.#root, MAX_TREE)) {
      const info = processInfo(pid);
      if (!info) continue;
      rss += info.rss;
      const known = this.#seen.get(pid);
      if (!known || known.start !== info.start) this.#seen.set(pid, { start: info.start, leads: info.pgid === pid });
    }
    return rss;
  }

  /** Stops watching, and kills what the evaluation left running. */
  reap() {
    clearInterval(this.#timer);
    this.#walk(); // what started since the last poll
    for (const [pid, { start, leads }] of this.#seen) {
      if (processInfo(pid)?.start !== start) continue; // gone, or another process now
      kill(leads ? -pid : pid);
      kill(pid);
    }
    this.#killMarked();
    // A process in the middle of an execve (setsid exec'ing the program it runs) shows an
    // empty environment for a moment: look again, twice, off the caller's path.
    for (const ms of RESCAN_MS) setTimeout(() => this.#killMarked(), ms).unref();
  }

  #killMarked() {
    for (const pid of processesWithEnv(this.#marker)) kill(pid);
  }
}

function kill(pid) {
  try {
    process.kill(pid, 'SIGKILL');
  } catch {
    // gone meanwhile, or not ours to signal
  }
}
