// The OOM killer's choice under a memory storm: a worker, never the daemon. When the
// cluster primary dies every worker dies with it, and the daemon, often the largest
// process of its cgroup, would be the kernel's first pick. So the daemon lowers its own
// oom_score_adj to DAEMON_ADJ, and gives each worker (which inherits the daemon's value
// at fork) WORKER_ADJ back, or the value the daemon was started with if higher.
// Lowering needs root (CAP_SYS_RESOURCE): a daemon of another user keeps the value it was
// started with (set OOMScoreAdjust= in its systemd unit); raising a worker's needs nothing.
import { readFile, writeFile } from 'node:fs/promises';

export const DAEMON_ADJ = -900;
export const WORKER_ADJ = 0;

let forWorkers = null; // what each worker is given; null: the daemon's own value, nothing to write

/**
 * Lowers the daemon's oom_score_adj (at boot, once).
 * @returns {Promise<{before: number|null, now: number|null, error?: string}>}
 */
export async function protectDaemon() {
  const before = await readAdj('self');
  if (before === null) return { before, now: null }; // no /proc: not Linux
  if (before > DAEMON_ADJ) {
    try {
      await writeFile('/proc/self/oom_score_adj', String(DAEMON_ADJ));
    } catch (err) {
      return { before, now: before, error: err.code ?? err.message };
    }
  }
  const now = await readAdj('self');
  forWorkers = workerAdj(before, now);
  return { before, now };
}

/**
 * What a worker is given: WORKER_ADJ, or the daemon's value at start if higher; null when
 * that is what the worker inherits anyway (nothing to write).
 * @param {number} before  the daemon's value at start  @param {number|null} now  its value now
 */
export function workerAdj(before, now) {
  const worker = Math.max(WORKER_ADJ, before);
  return now !== null && now < worker ? worker : null;
}

/** Gives worker `pid` the OOM killer's normal regard (no wait: it is best effort, and quick). */
export function unprotectWorker(pid) {
  if (forWorkers === null || !pid) return;
  writeFile(`/proc/${pid}/oom_score_adj`, String(forWorkers)).catch(() => {}); // gone already
}

/** oom_score_adj of `pid` ('self' for this process), or null when it cannot be read. */
export async function readAdj(pid) {
  const text = await readFile(`/proc/${pid}/oom_score_adj`, 'utf8').catch(() => null);
  return text === null ? null : Number(text);
}
