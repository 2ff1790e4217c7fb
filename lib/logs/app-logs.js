// The log files of one app: the descriptors the daemon opens and hands to its workers as
// stdout/stderr, size-based rotation, reopen and flush. No log data passes through here:
// workers write to the files themselves (O_APPEND, one write() per line, so lines from
// several workers never interleave), and the daemon only looks at file sizes. This file
// knows files, paths and descriptors; who writes to them is the caller's business
// (the `reopenWriters` function it is given).
//
// Rotation of a file that reached max_size (checked with one fstat per file every
// CHECK_MS or sooner while it grows fast, off the event loop):
//
//   rename chain (file -> file.1) -> open new file (new workers get it)
//     -> reopenWriters(slot): every process writing there opens the path again and says so
//     -> every writer acked -> gzip file.1 (logs.compress) / drop it (retain 0)
//
// Lines written between rename and reopen land in file.1, whole: 0 lost by construction.
//
// With log_rotate (daily, hourly, a cron expression) every file is also rotated when the
// schedule comes (one timer per app, read against logClock), and rotated files are dated
// (api-out.2026-11-23.log: the period the file began in), then pruned by count and age.
import fs from 'node:fs';
import fsp from 'node:fs/promises';
import { createRequire } from 'node:module';
import { slotFiles, appFiles } from './settings.js';
import { shiftChain, moveDated, periodStamp, finishRotation, pruneRotated, rotatedFiles } from './rotate.js';
import { logClock } from './clock.js';
import { SuperError } from '../errors.js';

const require = createRequire(import.meta.url);
// A far schedule (a yearly cron) is re-armed at least this often: setTimeout's limit is ~24.8 days.
const MAX_WAIT_MS = 3600 * 1000;

// Log paths are opened without following a link at the last component (a link planted
// where a log file goes must not make the daemon write, or empty, another file).
const APPEND = fs.constants.O_WRONLY | fs.constants.O_APPEND | fs.constants.O_CREAT | fs.constants.O_NOFOLLOW;
const CHECK_MS = 250;
const MIN_CHECK_MS = 10;
const AGENT_VAR = 'SUPER_LOG';

export class AppLogs {
  /**
   * @param {object} o
   * @param {string} o.name  the app's name, for daemon.log lines
   * @param {() => object} o.settings  the app's resolved log settings now (settings.js resolveLogSettings)
   * @param {(slot: number|null) => Promise<{acked: boolean, reason?: string}>} o.reopenWriters  asks
   *   the processes writing to slot's files (null: every slot's) to reopen them at their
   *   paths; resolves when each acked, or with the reason one did not
   * @param {import('./json-logger.js').JsonLogger} o.log
   */
  constructor({ name, settings, reopenWriters, log }) {
    this.name = name;
    this.settingsNow = settings;
    this.reopenWriters = reopenWriters;
    this.log = log;
    this.files = new Map(); // path -> {fd, fh, slot: number|null (null: all slots)}
    this.timer = null;
    this.rotating = new Set(); // paths being rotated: one rotation per file at a time
    this.reported = new Set(); // problems already logged (once each)
    this.scheduleTimer = null; // log_rotate
    this.periodStart = null; // when the current files' period began (their dated name)
  }

  get settings() {
    return this.settingsNow();
  }

  /** Paths of slot i (merged apps: the app's files). */
  paths(slot = 0) {
    return slotFiles(this.settings, slot);
  }

  /** Opens the files slots 0..instances-1 write to; closes those no longer used. */
  async open(instances) {
    const s = this.settings;
    const wanted = new Map();
    if (!s.disabled) {
      for (let i = 0; i < (s.perSlot ? instances : 1); i++) {
        const f = slotFiles(s, i);
        wanted.set(f.out, s.perSlot ? i : null);
        wanted.set(f.err, s.perSlot ? i : null);
      }
    }
    for (const [file, entry] of this.files) {
      if (!wanted.has(file) && !this.rotating.has(file)) {
        fs.close(entry.fd, () => {});
        this.files.delete(file);
      }
    }
    await Promise.all([...wanted].filter(([file]) => !this.files.has(file)).map(async ([file, slot]) => {
      const fh = await fsp.open(file, APPEND, 0o640);
      if (this.files.has(file)) fh.close();
      else this.files.set(file, { fd: fh.fd, fh, slot });
    }));
    this.#schedule();
    this.#scheduleRotation();
  }

  close() {
    clearTimeout(this.timer);
    this.timer = null;
    clearTimeout(this.scheduleTimer);
    this.scheduleTimer = null;
    for (const entry of this.files.values()) entry.fh.close().catch(() => {});
    this.files.clear();
  }

  /**
   * The worker's stdio for slot i: descriptors of its files ('ignore' with disable_logs).
   * Synchronous because forking is; a slot added by `scale` opens its file here (one open()).
   */
  stdioFor(slot) {
    const s = this.settings;
    if (s.disabled) return { out: 'ignore', err: 'ignore' };
    const f = slotFiles(s, slot);
    return { out: this.#fd(f.out, s.perSlot ? slot : null), err: this.#fd(f.err, s.perSlot ? slot : null) };
  }

  #fd(file, slot) {
    let entry = this.files.get(file);
    if (!entry) {
      const fd = fs.openSync(file, APPEND, 0o640);
      entry = { fd, fh: { close: () => /** @type {Promise<void>} */ (new Promise((resolve) => fs.close(fd, () => resolve()))) }, slot };
      this.files.set(file, entry);
      this.#schedule();
    }
    return entry.fd;
  }

  /**
   * Environment for the agent of slot i: where to reopen (the files the app has open) and
   * how to format (`format`: the log settings of the config the worker runs, which a
   * reload's replacement brings; lib/worker/log-format.cjs).
   */
  agentEnv(slot, format) {
    const s = this.settings;
    if (s.disabled) return {};
    const fmt = format ?? s;
    const f = slotFiles(s, slot);
    return { [AGENT_VAR]: JSON.stringify({ out: f.out, err: f.err, type: fmt.type, date: fmt.date, app: this.name, slot }) };
  }

  #once(key, level, obj, msg) {
    if (this.reported.has(key)) return;
    this.reported.add(key);
    this.log[level](obj, msg);
  }

  #schedule(delay = CHECK_MS) {
    if (this.timer || !this.settings.maxSize || !this.files.size) return;
    this.timer = setTimeout(() => {
      this.timer = null;
      this.#check();
    }, delay);
    this.timer.unref();
  }

  /**
   * One fstat per file. The next check comes sooner while a file grows fast (a flood can
   * write megabytes in a quarter of a second), so rotation stays close to max_size.
   */
  #check() {
    const max = this.settings.maxSize;
    const now = Date.now();
    let next = CHECK_MS;
    let pending = this.files.size;
    const done = () => {
      if (--pending === 0) this.#schedule(next);
    };
    for (const [file, entry] of this.files) {
      if (this.rotating.has(file)) {
        next = MIN_CHECK_MS;
        done();
        continue;
      }
      fs.fstat(entry.fd, (err, st) => {
        if (!err && this.files.get(file) === entry) {
          if (st.size >= max) {
            this.rotate(file).catch(() => {});
            next = MIN_CHECK_MS;
          } else if (entry.lastSize !== undefined && st.size > entry.lastSize) {
            const rate = (st.size - entry.lastSize) / Math.max(now - entry.lastAt, 1); // bytes/ms
            next = Math.min(next, Math.max(MIN_CHECK_MS, (max - st.size) / rate / 2));
          }
          entry.lastSize = st.size;
          entry.lastAt = now;
        }
        done();
      });
    }
  }

  /** The app's settings changed (a reload adopted its config): re-arm the log_rotate schedule. */
  settingsChanged() {
    clearTimeout(this.scheduleTimer);
    this.scheduleTimer = null;
    this.#scheduleRotation();
  }

  /** Arms the log_rotate timer for the next time the schedule comes (croner reads it). */
  #scheduleRotation() {
    const s = this.settings;
    if (this.scheduleTimer || !s.rotate || !this.files.size) return;
    const now = logClock();
    this.periodStart ??= now;
    const { Cron } = require('croner');
    const next = new Cron(s.rotate, { paused: true }).nextRun(new Date(now))?.getTime();
    if (!next) return;
    this.scheduleTimer = setTimeout(async () => {
      this.scheduleTimer = null;
      if (logClock() >= next && this.settings.rotate) {
        const stamp = periodStamp(this.periodStart, this.settings.dateBy);
        this.periodStart = next;
        // one file after the other: each rotation asks its writers to reopen
        for (const file of [...this.files.keys()]) await this.rotate(file, stamp);
      }
      this.#scheduleRotation();
    }, Math.min(Math.max(next - now, 0), MAX_WAIT_MS));
    this.scheduleTimer.unref();
  }

  /**
   * Rotates one file now (see the diagrams above). stamp: the dated name's period (the
   * schedule's); a size rotation with log_rotate takes the current period's.
   */
  async rotate(file, stamp) {
    const entry = this.files.get(file);
    if (!entry || this.rotating.has(file)) return;
    this.rotating.add(file);
    const s = this.settings;
    try {
      let rotated = `${file}.1`;
      if (s.rotate) rotated = await moveDated(file, stamp ?? periodStamp(this.periodStart ?? logClock(), s.dateBy));
      else await shiftChain(file, s.retain);
      const fh = await fsp.open(file, APPEND, 0o640);
      this.files.set(file, { fd: fh.fd, fh, slot: entry.slot });
      entry.fh.close().catch(() => {});
      const { acked, reason } = await this.reopenWriters(entry.slot);
      if (acked) await finishRotation(rotated, s);
      else if (s.compress || s.retain === 0) this.log.warn({ app: this.name, file: rotated }, `rotated file kept as is: ${reason}`);
      if (s.rotate || s.retainDays) await pruneRotated(file, s, logClock());
      this.log.info({ app: this.name, file, rotated }, 'log rotated');
    } catch (err) {
      this.#once(`rotate:${file}:${err.code}`, 'warn', { app: this.name, file, err: err.message }, 'log rotation failed (logged once)');
    } finally {
      this.rotating.delete(file);
    }
  }

  /** Reopens every file from its path (after an external logrotate) and tells the workers. */
  async reopen() {
    const reopened = [];
    for (const [file, entry] of [...this.files]) {
      try {
        const fh = await fsp.open(file, APPEND, 0o640);
        this.files.set(file, { fd: fh.fd, fh, slot: entry.slot });
        entry.fh.close().catch(() => {});
        reopened.push(file);
      } catch (err) {
        // keep writing where we were rather than nowhere
        this.log.warn({ app: this.name, file, err: err.message }, 'cannot reopen log file; still writing to the old one');
      }
    }
    await this.reopenWriters(null);
    return reopened;
  }

  /** Empties the log files of `slots` (truncate: writers go on at offset 0) and removes rotated ones. */
  async flush(slots) {
    const files = appFiles(this.settings, slots);
    const done = [];
    for (const f of files) {
      await emptyFile(f.path).then(() => done.push(f.path), (err) => {
        if (err.code === 'ELOOP') throw new SuperError('E_LOG_PATH', `${f.path} is a symbolic link, not emptied: log files are never opened through a link`);
        if (err.code !== 'ENOENT') throw err;
      });
      for (const r of await rotatedFiles(f.path)) await fsp.unlink(r).then(() => done.push(r), () => {});
    }
    return done;
  }
}

/** Truncates `file` through a descriptor opened without following a link (ELOOP if it is one). */
async function emptyFile(file) {
  const fh = await fsp.open(file, fs.constants.O_WRONLY | fs.constants.O_NOFOLLOW | fs.constants.O_NONBLOCK);
  try {
    await fh.truncate(0);
  } finally {
    await fh.close();
  }
}
