// The workers' side of an app's log files (lib/logs/app-logs.js knows only the files):
// what their agents report about writing (lib/worker/log-format.cjs), and asking them to
// reopen their files after a rotation or `super reload-logs`.
//
//   daemon -> agent  {cmd:'super:reopen-logs'}   cluster workers (a fork-mode agent notices
//                                                 the new file within a second by itself)
//   agent -> daemon  {cmd:'super:logs-reopened'}  writes to the new file from its next line
//                    {cmd:'super:log-error'}      a write failed; lines dropped until it works
//                    {cmd:'super:log-resumed'}    writing works again
const REOPEN_TIMEOUT_MS = 5000;
const FOLLOWED = Symbol('superd.logs.followed');

export class WorkerLogReports {
  /** @param {{app: string, log: import('pino').Logger}} o */
  constructor({ app, log }) {
    this.app = app;
    this.log = log;
    this.reported = new Set(); // write failures already logged (once each until resumed)
  }

  /** Listens to a newly started worker's reports (write errors, recoveries). */
  follow(proc) {
    if (!proc?.child || proc[FOLLOWED]) return;
    proc[FOLLOWED] = true;
    proc.child.on('message', (m) => {
      if (m === null || typeof m !== 'object') return;
      if (m.cmd === 'super:log-error') {
        const key = `write:${m.stream}:${m.code}`;
        if (this.reported.has(key)) return;
        this.reported.add(key);
        this.log.warn({ app: this.app, slot: m.slot, pid: proc.pid, stream: m.stream, code: m.code }, 'log write failed; lines are dropped until writing works again (logged once)');
      } else if (m.cmd === 'super:log-resumed') {
        this.reported.delete(`write:${m.stream}:${m.code}`);
        this.log.info({ app: this.app, slot: m.slot, pid: proc.pid, stream: m.stream, dropped: m.dropped }, 'log writing resumed');
      }
    });
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
      child.off('message', onMessage);
      proc.off('exit', onExit);
      resolve(v);
    };
    const onMessage = (m) => m?.cmd === 'super:logs-reopened' && done(true);
    const onExit = () => done(true);
    const timer = setTimeout(() => done(`pid ${proc.pid} did not reopen within ${REOPEN_TIMEOUT_MS} ms`), REOPEN_TIMEOUT_MS);
    child.on('message', onMessage);
    proc.once('exit', onExit);
    // A fork-mode agent notices the new file by itself (lib/worker/log-format.cjs): only ack.
    if (proc.kind !== 'cluster') return;
    try {
      child.send({ cmd: 'super:reopen-logs' });
    } catch {
      done(`pid ${proc.pid} could not be asked`);
    }
  });
}
