// The process groups of this daemon's workers, on disk ($SUPER_HOME/worker-groups), so
// that the next daemon of the same SUPER_HOME ends what a daemon that died (SIGKILL, the
// OOM killer) left running. Fork-mode children die with it (setpriv --pdeathsig KILL:
// exec-prefix.js), but what they started does not: the parent-death signal reaches only
// the child. Cluster workers first serve what they hold, for up to their app's
// drain_timeout (lib/worker/drain.cjs outliveDaemon): the next daemon gives a leader still
// running that long before it ends its group (one stuck in a loop never exits by
// itself). Each worker leads its own group (exec-prefix.js), so the group is what is recorded.
//
// One line per group: "<pgid> <start time of its leader> <grace ms>", the start time being
// field 22 of /proc/<pid>/stat (clock ticks since boot). A pid, and so a group id, is reused once
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
const MAX_FILE_BYTES = 32 * 1024 * 1024; // ~24 bytes a group: 1000 apps x 1024 workers fit
const MAX_GRACE = 10 * 60 * 1000; // a recorded grace past this is not one a daemon wrote

let file = null;
const groups = new Map(); // pgid -> {start, grace}
let dirty = false;
let writing = null;

/** This daemon's record in `home` (orphan-reaper.js reads it once the daemon is gone). */
export const recordFile = (home) => path.join(home, `${PREFIX}${process.pid}`);

/** Records groups in `home` from now on (the daemon, once at boot). */
export function recordGroupsIn(home) {
  file = recordFile(home);
  process.once('exit', () => {
    fs.rmSync(`${file}.tmp`, { force: true }); // a write still in flight
    if (groups.size === 0) fs.rmSync(file, { force: true });
  });
}

/**
 * A worker that leads group `pgid` was just started.
 * @param {number} pgid
 * @param {number} [grace]  ms its leader may outlive a daemon that dies (a cluster worker's drain_timeout)
 */
export function trackGroup(pgid, grace = 0) {
  if (file === null) return;
  const stat = processInfo(pgid);
  if (stat === null) return;
  groups.set(pgid, { start: stat.start, grace });
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
      const body = [...groups].map(([pgid, { start, grace }]) => `${pgid} ${start} ${grace}\n`).join('');
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
 * daemon of this home that still has processes, then clears the records. A group whose
 * leader still runs with a grace (a cluster worker serving what it held when its daemon
 * died) is ended once the grace has passed, if it is still there then (onLateEnd says so).
 * @param {string} home
 * @param {(group: {pgid: number, pids: number[]}) => void} [onLateEnd]
 * @returns {Promise<{ended: {pgid: number, pids: number[]}[], waiting: {pgid: number, pids: number[], grace: number}[]}>}
 */
export async function endLeftoverGroups(home, onLateEnd = () => {}) {
  const files = (await fs.promises.readdir(home).catch(() => [])).filter((n) => RECORD.test(n)).map((n) => path.join(home, n));
  const recorded = new Map();
  for (const f of files) for (const [pgid, record] of await readRecord(f)) recorded.set(pgid, record);
  const ended = [];
  const waiting = [];
  const due = new Map(); // grace -> Map(pgid -> start): the groups ended together once it has passed
  if (recorded.size > 0) {
    const members = await groupMembers(new Set(recorded.keys()));
    for (const [pgid, { start, grace }] of recorded) {
      const pids = members.get(pgid) ?? [];
      if (pids.length === 0 || !sameGroup(pgid, start, pids)) continue;
      const summary = { pgid, pids: pids.map((p) => p.pid) };
      if (grace > 0 && pids.some((p) => p.pid === pgid)) {
        waiting.push({ ...summary, grace });
        if (!due.has(grace)) due.set(grace, new Map());
        due.get(grace)?.set(pgid, start);
      } else if (endGroup(pgid)) ended.push(summary);
    }
  }
  // One timer and one walk of /proc per grace, however many groups share it (a daemon's
  // workers mostly do: the walk reads every process's stat, synchronously).
  for (const [grace, groups] of due) setTimeout(() => endLater(groups, onLateEnd), grace).unref();
  await Promise.all(files.map((f) => fs.promises.rm(f, { force: true })));
  return { ended, waiting };
}

/** @param {Map<number, number>} groups  pgid -> start time of its recorded leader */
async function endLater(groups, onLateEnd) {
  const members = await groupMembers(new Set(groups.keys()));
  for (const [pgid, start] of groups) {
    const pids = members.get(pgid) ?? [];
    if (pids.length > 0 && sameGroup(pgid, start, pids) && endGroup(pgid)) onLateEnd({ pgid, pids: pids.map((p) => p.pid) });
  }
}

function endGroup(pgid) {
  try {
    process.kill(-pgid, 'SIGKILL');
    return true;
  } catch {
    return false; // ESRCH: it ended meanwhile; EPERM: not ours to end
  }
}

function sameGroup(pgid, start, pids) {
  const leader = pids.find((p) => p.pid === pgid);
  return leader ? leader.start === start : pids.every((p) => p.start >= start);
}

/** @returns {Promise<Map<number, {start: number, grace: number}>>} */
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
    const m = /^(\d+) (\d+)(?: (\d+))?$/.exec(line); // no grace: written by a daemon before it was recorded
    if (m && Number(m[1]) > 1) out.set(Number(m[1]), { start: Number(m[2]), grace: Math.min(Number(m[3] ?? 0), MAX_GRACE) });
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
