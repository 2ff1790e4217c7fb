// The process groups of this daemon's workers, on disk ($SUPER_HOME/worker-groups), so
// that the next daemon of the same SUPER_HOME ends what a daemon that died (SIGKILL, the
// OOM killer) left running. Its workers die with it (setpriv --pdeathsig KILL:
// exec-prefix.js), but what they started does not: the parent-death signal reaches only
// the worker. Each worker leads its own group (setsid), so the group is what is recorded.
//
// One line per group: "<pgid> <start time of its leader>", the start time being field 22
// of /proc/<pid>/stat (clock ticks since boot). A pid, and so a group id, is reused once
// its group is gone; the start time tells the group we started from a newer one:
//  - the leader still runs: its start time must be the recorded one;
//  - the leader is gone: every process still in the group must have started at or after
//    it (a group is never re-created by the same id while one of its processes lives).
// Processes that left the group (setsid, a double-fork daemon) are not found this way.
//
// Each daemon writes its own file, worker-groups.<its pid>: during `super upgrade` two daemons
// of one home run workers at once. A daemon that exits with no group left removes its file.
//
// Writes are coalesced (one in flight, the whole list each time, through a temporary
// file and a rename) and never block the daemon; a failed write is retried at the next change.
import fs from 'node:fs';
import path from 'node:path';
import { processInfo } from '../../process-tree.js';
import { readFileSafe } from '../../safe-read.js';

const PREFIX = 'worker-groups.';
const RECORD = /^worker-groups\.\d+$/;
const MAX_FILE_BYTES = 32 * 1024 * 1024; // ~16 bytes a group: 1000 apps x 1024 workers fit

let file = null;
const groups = new Map(); // pgid -> start time
let dirty = false;
let writing = null;

/** Records groups in `home` from now on (the daemon, once at boot). */
export function recordGroupsIn(home) {
  file = path.join(home, `${PREFIX}${process.pid}`);
  process.once('exit', () => {
    fs.rmSync(`${file}.tmp`, { force: true }); // a write still in flight
    if (groups.size === 0) fs.rmSync(file, { force: true });
  });
}

/** A worker that leads group `pgid` was just started. */
export function trackGroup(pgid) {
  if (file === null) return;
  const stat = processInfo(pgid);
  if (stat === null) return;
  groups.set(pgid, stat.start);
  save();
}

/** Group `pgid` is empty, or was sent SIGKILL. */
export function forgetGroup(pgid) {
  if (groups.delete(pgid)) save();
}

function save() {
  dirty = true;
  writing ??= flush();
}

async function flush() {
  try {
    while (dirty) {
      dirty = false;
      const body = [...groups].map(([pgid, start]) => `${pgid} ${start}\n`).join('');
      const tmp = `${file}.tmp`;
      await fs.promises.writeFile(tmp, body, { mode: 0o600 });
      await fs.promises.rename(tmp, file);
    }
  } catch {
    dirty = true; // kept for the next change (a full disk, a removed home)
    // A write that a full disk cut short leaves the temporary file (empty): not on disk for good.
    await fs.promises.rm(`${file}.tmp`, { force: true }).catch(() => {});
  } finally {
    writing = null;
  }
}

/**
 * At boot, before any worker starts: ends (SIGKILL) every recorded group of a previous
 * daemon of this home that still has processes, then clears the records.
 * @returns {Promise<{pgid: number, pids: number[]}[]>} the groups ended
 */
export async function endLeftoverGroups(home) {
  const files = (await fs.promises.readdir(home).catch(() => [])).filter((n) => RECORD.test(n)).map((n) => path.join(home, n));
  const recorded = new Map();
  for (const f of files) for (const [pgid, start] of await readRecord(f)) recorded.set(pgid, start);
  const ended = [];
  if (recorded.size > 0) {
    const members = await groupMembers(new Set(recorded.keys()));
    for (const [pgid, start] of recorded) {
      const pids = members.get(pgid) ?? [];
      if (pids.length === 0 || !sameGroup(pgid, start, pids)) continue;
      try {
        process.kill(-pgid, 'SIGKILL');
        ended.push({ pgid, pids: pids.map((p) => p.pid) });
      } catch {
        // ESRCH: it ended meanwhile; EPERM: not ours to end
      }
    }
  }
  await Promise.all(files.map((f) => fs.promises.rm(f, { force: true })));
  return ended;
}

function sameGroup(pgid, start, pids) {
  const leader = pids.find((p) => p.pid === pgid);
  return leader ? leader.start === start : pids.every((p) => p.start >= start);
}

async function readRecord(at) {
  const out = new Map();
  let text;
  try {
    // Over the bound, a link or not a regular file: not ours (no daemon writes that).
    text = (await readFileSafe(at, { max: MAX_FILE_BYTES, follow: false })).toString('utf8');
  } catch {
    return out; // none (the first daemon of this home), or unreadable: nothing to end
  }
  for (const line of text.split('\n')) {
    const m = /^(\d+) (\d+)$/.exec(line);
    if (m && Number(m[1]) > 1) out.set(Number(m[1]), Number(m[2]));
  }
  return out;
}

/** pgid -> [{pid, start}] of the running processes in one of `pgids`. */
async function groupMembers(pgids) {
  const out = new Map();
  const names = await fs.promises.readdir('/proc').catch(() => []); // not Linux: nothing was recorded
  for (const name of names) {
    if (!/^\d+$/.test(name)) continue;
    const stat = processInfo(Number(name));
    if (stat === null || !pgids.has(stat.pgid)) continue;
    if (!out.has(stat.pgid)) out.set(stat.pgid, []);
    out.get(stat.pgid).push({ pid: Number(name), start: stat.start });
  }
  return out;
}
