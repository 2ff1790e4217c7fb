// The daemon's own log: pino, JSON lines, $SUPER_HOME/daemon.log, rotated like app logs
// (rename chain, then pino's destination reopens the path; never copy + truncate).
// Size limit and retention come from the `logs:` block of the last ecosystem file started
// (max_size, retain, compress), with defaults that keep a long-running daemon bounded.
// `super daemon --log-to stderr` (the systemd unit) writes the same lines to stderr instead:
// journald keeps and rotates them (`journalctl -u superd`); with JOURNAL_STREAM set (stderr
// is the journal) each line starts with its syslog priority, `<6>` for info, which
// journald reads as the entry's priority (sd-daemon(3)) and strips.
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

// pino level -> syslog priority (debug 7, info 6, warning 4, err 3, crit 2)
const PRIORITY = { 10: 7, 20: 7, 30: 6, 40: 4, 50: 3, 60: 2 };
// daemon_pid, not pid: worker events carry the worker's pid.
const OPTIONS = { base: { daemon_pid: process.pid }, timestamp: pino.stdTimeFunctions.isoTime };

/**
 * Creates the daemon's logger on `file`, with size checks every CHECK_MS, or on stderr.
 * @param {string} file
 * @param {{to?: 'file'|'stderr'}} [o]
 */
export function createDaemonLog(file, { to = 'file' } = {}) {
  if (to === 'stderr') return createStderrLog();
  const dest = pino.destination({ dest: file, sync: false, mkdir: true });
  const log = pino(OPTIONS, dest);
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

function createStderrLog() {
  const dest = pino.destination({ dest: 2, sync: false });
  let log;
  if (process.env.JOURNAL_STREAM) {
    // pino's line starts with {"level":NN
    log = pino(OPTIONS, { write: (line) => dest.write(`<${PRIORITY[line.slice(9, 11)] ?? 6}>${line}`) });
    process.once('exit', () => dest.flushSync());
  } else {
    log = pino(OPTIONS, dest);
  }
  current = { log, dest, reopen: () => {}, rotate: async () => {} };
  return current;
}

/** Reopens daemon.log at its path (SIGUSR2, `super reload-logs`). */
export function reopenDaemonLog() {
  current?.reopen();
}
