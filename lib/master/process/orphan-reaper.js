// When the daemon dies (SIGKILL, the OOM killer), its cluster workers finish what they
// serve and exit by themselves (lib/worker/drain.cjs outliveDaemon); one stuck in a loop
// runs none of that, and with no daemon started again it would spin, and hold its port
// under `scheduling: os`, for ever. So the daemon starts, once at boot, a small perl
// process that outlives it: it blocks on a pipe only the daemon holds, and at EOF (the
// daemon exited or died) reads the daemon's worker-groups record (group-record.js) and
// ends each group whose leader still runs, the same process by its start time, once the
// grace recorded for it (its app's drain_timeout) has passed. A daemon that exits cleanly
// has removed that record: the reaper exits at once. It forks away from the daemon first
// (so it is nobody's worker), in a session of its own (a terminal's signals never reach it).
// Cost: one sleeping perl, ~3 MB. Where there is no perl the reaper is not started, and
// cluster workers get the parent-death signal instead (launch-cluster.js): they die with
// the daemon, in-flight requests with them.
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { execTools } from './exec-prefix.js';

const SCRIPT = fileURLToPath(new URL('./orphan-reaper.pl', import.meta.url));

let running = false;

/**
 * Starts the reaper for the groups recorded in `recordFile` (the daemon, once at boot).
 * @param {string} recordFile  group-record.js's file of this daemon
 * @returns {boolean} whether it runs (false: no perl)
 */
export function startOrphanReaper(recordFile) {
  const { perl } = execTools();
  // As PID 1 (`super run` in a container) the daemon's death ends every process of its
  // namespace: nothing to outlive it, and a reaper reparented to the daemon would be its child.
  if (!perl || running || process.pid === 1) return running;
  // fd 3, not stdin: Node closes a child's stdin when that child exits, and the process
  // spawned here exits at once (its fork goes on as the reaper).
  const child = spawn(perl, [SCRIPT, recordFile], { stdio: ['ignore', 'ignore', 'ignore', 'pipe'], detached: true });
  child.on('error', () => {}); // seen as not running: workers then get the parent-death signal
  child.unref();
  // The daemon never writes; its end of the pipe closes when it exits, however it exits.
  const end = /** @type {import('node:net').Socket} */ (child.stdio[3]);
  end.on('error', () => {});
  end.unref();
  running = typeof child.pid === 'number';
  return running;
}

/** Whether a reaper outlives this daemon (cluster workers then go without the parent-death signal). */
export const orphanReaperRunning = () => running;
