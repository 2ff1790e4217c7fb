// A process's descendants and resident memory, from /proc (Linux): what the bounds of a
// process tree need (the evaluator of a JS/TS ecosystem file, a worker's strays).
import fs from 'node:fs';

const PAGE = 4096; // x86-64 and arm64 (4 KiB pages): RSS is read in pages

/** The direct children of `pid` (through every thread), or [] when it is gone. */
function childrenOf(pid) {
  const out = [];
  let tids;
  try {
    tids = fs.readdirSync(`/proc/${pid}/task`);
  } catch {
    return out;
  }
  for (const tid of tids) {
    try {
      const list = fs.readFileSync(`/proc/${pid}/task/${tid}/children`, 'utf8').trim();
      if (list) out.push(...list.split(' ').map(Number));
    } catch {
      // the thread or the process ended meanwhile
    }
  }
  return out;
}

/** The descendants of `pid`, breadth first, at most `max` of them (a bound against fork bombs). */
export function descendants(pid, max) {
  const out = [];
  const queue = [pid];
  while (queue.length > 0 && out.length < max) {
    for (const child of childrenOf(/** @type {number} */ (queue.shift())).slice(0, max - out.length)) {
      out.push(child);
      queue.push(child);
    }
  }
  return out;
}

/**
 * One process as /proc/<pid>/stat says: its start time (clock ticks since boot, which tells
 * it from a later process that got its pid), its process group and its resident memory.
 * @returns {{start: number, pgid: number, rss: number}|null} rss in bytes; null when gone
 */
export function processInfo(pid) {
  let text;
  try {
    text = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
  } catch {
    return null;
  }
  // The command (field 2) is in parentheses and may hold spaces or parentheses itself.
  const fields = text.slice(text.lastIndexOf(')') + 2).split(' '); // fields[0] is field 3
  return { pgid: Number(fields[2]), start: Number(fields[19]), rss: Number(fields[21]) * PAGE };
}

/**
 * The processes whose environment holds `entry` (`NAME=value`): what a tree's processes that
 * left it (setsid, then their parent exited) still carry. Only the processes this one may
 * read are seen (its own user's, or all as root).
 * @param {string} entry
 * @returns {number[]}
 */
export function processesWithEnv(entry) {
  const wanted = Buffer.from(`${entry}\0`);
  const out = [];
  for (const name of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(name) || Number(name) === process.pid) continue;
    try {
      const env = fs.readFileSync(`/proc/${name}/environ`);
      if (env.indexOf(wanted) === 0 || env.indexOf(Buffer.concat([Buffer.from([0]), wanted])) !== -1) out.push(Number(name));
    } catch {
      // gone, or not ours to read
    }
  }
  return out;
}
