// The workers' side of an app's log files (lib/logs/app-logs.js knows only the files):
// what their agents report about writing (lib/worker/log-format.cjs), and asking them to
// reopen their files after a rotation or `super reload-logs`. The messages themselves are
// the agent protocol's (lib/ipc/agent-protocol.cjs); WorkerProcess turns them into events:
//   'log-error'     a write failed; lines are dropped until writing works again
//   'log-resumed'   writing works again
//   'logs-reopened' the answer to reopenLogs() (cluster workers; a fork-mode agent notices
//                   the new file within a second by itself)
//
// An app can send these reports itself, as fast as its channel drains: each worker gets at
// most REPORT_LINES lines per REPORT_WINDOW_MS, and one "suppressed N" line for the rest
// when the window closes (or the worker exits).
const REOPEN_TIMEOUT_MS = 5000;
const REPORT_LINES = 10;
const REPORT_WINDOW_MS = 60_000;
const FOLLOWED = Symbol('superd.logs.followed');

export class WorkerLogReports {
  /** @param {{app: string, log: import('../../logs/json-logger.js').JsonLogger}} o */
  constructor({ app, log }) {
    this.app = app;
    this.log = log;
    this.reported = new Set(); // write failures already logged (once each until resumed)
  }

  /** Listens to a newly started worker's reports (write errors, recoveries). */
  follow(proc) {
    if (!proc?.child || proc[FOLLOWED]) return;
    proc[FOLLOWED] = true;
    const lines = new ReportBudget(() => this.log.warn({ app: this.app, pid: proc.pid, suppressed: lines.takeSuppressed() }, `log write reports of pid ${proc.pid} suppressed (more than ${REPORT_LINES} in ${REPORT_WINDOW_MS / 1000} s)`));
    proc.once('exit', () => lines.close());
    proc.on('log-error', (m) => {
      const key = `write:${m.stream}:${m.code}`;
      if (this.reported.has(key)) return;
      this.reported.add(key);
      if (lines.take()) this.log.warn({ app: this.app, slot: m.slot, pid: proc.pid, stream: m.stream, code: m.code }, 'log write failed; lines are dropped until writing works again (logged once)');
    });
    proc.on('log-resumed', (m) => {
      this.reported.delete(`write:${m.stream}:${m.code}`);
      if (lines.take()) this.log.info({ app: this.app, slot: m.slot, pid: proc.pid, stream: m.stream, dropped: m.dropped }, 'log writing resumed');
    });
  }
}

/** At most REPORT_LINES lines per window; what is held back is counted and said once, by `sayDropped`, when the window closes. */
class ReportBudget {
  constructor(sayDropped) {
    this.sayDropped = sayDropped;
    this.windowStart = 0;
    this.used = 0;
    this.suppressed = 0;
    this.timer = null;
  }

  /** @returns {boolean} whether one more line may be logged now */
  take() {
    const now = Date.now();
    if (now - this.windowStart >= REPORT_WINDOW_MS) {
      this.windowStart = now;
      this.used = 0;
    }
    if (this.used < REPORT_LINES) {
      this.used++;
      return true;
    }
    if (this.suppressed++ === 0) {
      this.timer = setTimeout(() => this.sayDropped(), this.windowStart + REPORT_WINDOW_MS - now);
      this.timer.unref();
    }
    return false;
  }

  takeSuppressed() {
    const n = this.suppressed;
    this.suppressed = 0;
    this.timer = null;
    return n;
  }

  /** The worker exited: the count held back is said now. */
  close() {
    if (this.timer === null) return;
    clearTimeout(this.timer);
    this.sayDropped();
  }
}

/**
 * Asks live worker processes to reopen their log files; resolves when each acked or
 * exited. Workers without the agent (fork mode, interpreter none) cannot reopen: they keep
 * their descriptors (and so the rotated file) until they restart.
 * @returns {Promise<{acked: boolean, reason?: string}>}
 */
export async function reopenWorkerLogs(procs) {
  const results = await Promise.all(procs.filter((p) => p && !p.exited).map((p) => askReopen(p)));
  const missing = results.filter((r) => r !== true);
  return missing.length ? { acked: false, reason: missing[0] } : { acked: true };
}

function askReopen(proc) {
  const child = proc.child;
  if (!child?.connected || typeof child.send !== 'function') return Promise.resolve(`pid ${proc.pid} has no agent (fork mode, interpreter none) and writes to it until it restarts`);
  return new Promise((resolve) => {
    const done = (v) => {
      clearTimeout(timer);
      proc.off('logs-reopened', onReopened);
      proc.off('exit', onExit);
      resolve(v);
    };
    const onReopened = () => done(true);
    const onExit = () => done(true);
    const timer = setTimeout(() => done(`pid ${proc.pid} did not reopen within ${REOPEN_TIMEOUT_MS} ms`), REOPEN_TIMEOUT_MS);
    proc.on('logs-reopened', onReopened);
    proc.once('exit', onExit);
    // A fork-mode agent notices the new file by itself (lib/worker/log-format.cjs): only ack.
    try {
      proc.reopenLogs();
    } catch {
      done(`pid ${proc.pid} could not be asked`);
    }
  });
}
