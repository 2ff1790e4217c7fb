// The daemon's own log: pino's JSON lines (written by lib/logs/json-logger.js), in
// $SUPER_HOME/daemon.log, rotated like app logs (rename chain, then the file is reopened at
// its path; never copy + truncate).
// Size limit and retention come from the `logs:` block of the last ecosystem file started
// (max_size, retain, compress), with defaults that keep a long-running daemon bounded.
//
// A full disk (or any write error) must not reach the daemon's event loop: lines go to a
// bounded queue written by one asynchronous write at a time; a failed write drops its
// lines and counts them, with no retry of its own (the next line tries again), and the
// first write that works again is followed by one line saying how many were dropped.
// (pino.destination, sonic-boom, emitted an unhandled 'error' on ENOSPC; the daemon's
// fatal log of it then called flushSync, which retries a failing write in a synchronous
// loop: the daemon froze until space was freed. This destination has no such loop.)
//
// `super daemon --log-to stderr` (the systemd unit) writes the same lines to stderr instead,
// through the same bounded queue: journald keeps and rotates them (`journalctl -u superd`);
// with JOURNAL_STREAM set (stderr is the journal) each line starts with its syslog priority,
// `<6>` for info, which journald reads as the entry's priority (sd-daemon(3)) and strips.
import fs from 'node:fs';
import { createJsonLogger } from './json-logger.js';
import { shiftChain, finishRotation } from './rotate.js';

const CHECK_MS = 5000;
/** Bytes of lines waiting for the disk; beyond it lines are dropped (and counted). */
const DAEMON_LOG_QUEUE_BYTES = 1024 * 1024;
// The daemon's own file: never follow a link planted at its path.
const OPEN_FLAGS = fs.constants.O_WRONLY | fs.constants.O_APPEND | fs.constants.O_CREAT | fs.constants.O_NOFOLLOW;
const rotation = { maxSize: 10 * 1024 * 1024, retain: 5, compress: false };
let current = null;

/** Daemon-wide `logs:` settings of an ecosystem file (lib/config normalize-daemon). */
export function setDaemonLogRotation(logs) {
  if (!logs) return;
  if (logs.max_size) rotation.maxSize = logs.max_size;
  if (logs.retain !== null && logs.retain !== undefined) rotation.retain = logs.retain;
  rotation.compress = Boolean(logs.compress);
}

/**
 * A log destination that never blocks and never retries in a loop.
 * @param {string|number} file  a path, or an open descriptor (stderr: 2), never reopened
 * @param {(dropped: number, code: string) => void} onRecovered  told once writing works again
 */
function lossyFile(file, onRecovered) {
  let fd = typeof file === 'number' ? file : fs.openSync(file, OPEN_FLAGS, 0o600);
  let queue = [];
  let queued = 0;
  let writing = false;
  let dropped = 0;
  let lastError = null;
  let cutLine = false; // a failed write left half a line: start the next one on a new line
  let nextFd = null; // a reopened file, taken when the write in flight is done
  let opening = 0; // reopens in flight: lines wait for the new file
  const idle = new Set(); // flush callbacks
  const swapped = new Set(); // reopen callbacks

  const wake = (waiters) => {
    for (const cb of waiters) cb();
    waiters.clear();
  };

  function write(line) {
    if (queued + line.length > DAEMON_LOG_QUEUE_BYTES) {
      dropped++;
      lastError ??= 'EQUEUEFULL';
      return true;
    }
    queue.push(line);
    queued += line.length;
    writeQueue();
    return true;
  }

  /** Starts the next write, if none is in flight and no reopen is. */
  function writeQueue() {
    if (writing || opening) return;
    if (nextFd !== null) {
      fs.close(fd, () => {});
      fd = nextFd;
      nextFd = null;
      wake(swapped);
    }
    if (!queue.length) {
      wake(idle);
      return;
    }
    writing = true;
    const lines = queue.length;
    const buf = Buffer.from((cutLine ? '\n' : '') + queue.join(''));
    queue = [];
    queued = 0;
    writeAll(buf, 0, (err, written) => {
      writing = false;
      if (err) {
        // Whole lines not written are lost; a cut one is counted too.
        dropped += written === 0 ? lines : countLines(buf.subarray(written)) + 1;
        lastError = err.code ?? err.message;
        cutLine = written > 0;
        // No retry: the next line written tries again. Whoever waits is not held by a full disk.
        if (nextFd !== null) writeQueue(); // a reopened file may take them
        wake(idle);
        return;
      }
      cutLine = false;
      if (dropped) {
        const n = dropped;
        const code = lastError;
        dropped = 0;
        lastError = null;
        onRecovered(n, code);
      }
      writeQueue();
    });
  }

  function writeAll(buf, offset, done) {
    fs.write(fd, buf, offset, buf.length - offset, null, (err, n) => {
      if (err) return done(err, offset);
      if (offset + n < buf.length) return writeAll(buf, offset + n, done);
      done(null, buf.length);
    });
  }

  return {
    write,
    /** One last synchronous try with what is queued (at exit: no asynchronous write runs then). */
    flushSync() {
      try {
        fs.writeSync(fd, queue.join(''));
      } catch {} // the lines are lost, as they would be without this try
      queue = [];
      queued = 0;
    },
    /** Calls cb once every queued line has been written (or dropped). */
    flush(cb) {
      if (!writing && !queue.length) return cb();
      idle.add(cb);
      writeQueue();
    },
    /**
     * Opens the path again (after a rotation renamed it); resolves once lines go there. Lines
     * logged from now on go to the new file; the write in flight finishes in the old one.
     * @returns {Promise<void>}
     */
    reopen() {
      opening++;
      return new Promise((resolve) => {
        fs.open(/** @type {string} a descriptor (stderr) is never reopened */ (file), OPEN_FLAGS, 0o600, (err, newFd) => {
          opening--;
          if (err) {
            dropped++; // the line that would say so could not be written either: count it
            lastError = `reopen ${err.code}`;
            resolve();
          } else {
            if (nextFd !== null) fs.close(nextFd, () => {});
            nextFd = newFd;
            swapped.add(resolve);
          }
          writeQueue();
        });
      });
    },
  };
}

// pino level -> syslog priority (debug 7, info 6, warning 4, err 3, crit 2)
const PRIORITY = { 10: 7, 20: 7, 30: 6, 40: 4, 50: 3, 60: 2 };
// daemon_pid, not pid: worker events carry the worker's pid.
const BASE = { daemon_pid: process.pid };

function countLines(buf) {
  let n = 0;
  for (let i = buf.indexOf(10); i >= 0; i = buf.indexOf(10, i + 1)) n++;
  return n;
}

/**
 * Creates the daemon's logger on `file`, with size checks every CHECK_MS, or on stderr.
 * @param {string} file
 * @param {{to?: 'file'|'stderr'}} [o]
 */
export function createDaemonLog(file, { to = 'file' } = {}) {
  if (to === 'stderr') return createStderrLog();
  let log = null;
  const dest = lossyFile(file, (dropped, code) => {
    log.warn({ dropped_lines: dropped, error: code }, `${dropped} daemon log lines could not be written (${code}) and were dropped`);
  });
  log = createJsonLogger(dest, BASE);
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
      // The write in flight lands in the renamed file, every line after it in the new one.
      await dest.reopen();
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
  let log = null;
  const dest = lossyFile(2, (dropped, code) => {
    log.warn({ dropped_lines: dropped, error: code }, `${dropped} daemon log lines could not be written (${code}) and were dropped`);
  });
  // The line starts with {"level":NN
  const write = process.env.JOURNAL_STREAM ? (line) => dest.write(`<${PRIORITY[line.slice(9, 11)] ?? 6}>${line}`) : dest.write;
  log = createJsonLogger({ write, flush: dest.flush }, BASE);
  // A process.exit() (a failed boot) leaves no turn for the queued lines: written now, once.
  process.once('exit', () => dest.flushSync());
  current = { log, dest, reopen: () => {}, rotate: async () => {} };
  return current;
}

/** Reopens daemon.log at its path (SIGUSR2, `super reload-logs`). */
export function reopenDaemonLog() {
  current?.reopen();
}
