// The daemon's own log: pino, JSON lines, $SUPER_HOME/daemon.log, rotated like app logs
// (rename chain, then pino's destination reopens the path; never copy + truncate).
// Size limit and retention come from the `logs:` block of the last ecosystem file started
// (max_size, retain, compress), with defaults that keep a long-running daemon bounded.
import fs from 'node:fs';
import pino from 'pino';
import { shiftChain, finishRotation } from './rotate.js';

const CHECK_MS = 5000;
const rotation = { maxSize: 10 * 1024 * 1024, retain: 5, compress: false };
let current = null;

/** Daemon-wide `logs:` settings of an ecosystem file (lib/config normalize-daemon). */
export function setDaemonLogRotation(logs) {
  if (!logs) return;
  if (logs.max_size) rotation.maxSize = logs.max_size;
  if (logs.retain !== null && logs.retain !== undefined) rotation.retain = logs.retain;
  rotation.compress = Boolean(logs.compress);
}

/** Creates the daemon's logger on `file`, with size checks every CHECK_MS. */
export function createDaemonLog(file) {
  const dest = pino.destination({ dest: file, sync: false, mkdir: true });
  // daemon_pid, not pid: worker events carry the worker's pid.
  const log = pino({ base: { daemon_pid: process.pid }, timestamp: pino.stdTimeFunctions.isoTime }, dest);
  let rotating = false;
  const timer = setInterval(() => {
    if (rotating) return;
    fs.stat(file, (err, st) => {
      if (err || st.size < rotation.maxSize || rotating) return;
      rotating = true;
      rotate().finally(() => {
        rotating = false;
      });
    });
  }, CHECK_MS);
  timer.unref();

  async function rotate() {
    try {
      await shiftChain(file, rotation.retain);
      dest.reopen();
      // pino writes asynchronously: let what was queued for the old file land first.
      await new Promise((r) => setTimeout(r, 200));
      await finishRotation(`${file}.1`, rotation);
      log.info({ file }, 'daemon log rotated');
    } catch (err) {
      log.warn({ err: err.message }, 'daemon log rotation failed');
    }
  }

  current = { log, dest, reopen: () => dest.reopen(), rotate };
  return current;
}

/** Reopens daemon.log at its path (SIGUSR2, `super reload-logs`). */
export function reopenDaemonLog() {
  current?.reopen();
}
