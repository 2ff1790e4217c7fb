// The log files of one app: the descriptors the daemon opens and hands to its workers as
// stdout/stderr, size-based rotation, reopen and flush. No log data passes through here:
// workers write to the files themselves (O_APPEND, one write() per line, so lines from
// several workers never interleave), and the daemon only looks at file sizes.
//
// Rotation of a file that reached max_size (checked with one fstat per file every
// CHECK_MS or sooner while it grows fast, off the event loop):
//
//   daemon: rename chain (file -> file.1)  -> open new file (new workers get it)
//        -> {cmd:'super:reopen-logs'} to each live cluster worker writing there
//   agent:  opens the path again (a fork-mode agent notices the new file within a
//           second by itself), writes there from its next line, acks
//        <- {cmd:'super:logs-reopened'}
//   daemon: every writer acked -> gzip file.1 (logs.compress) / drop it (retain 0)
//
// Lines written between rename and reopen land in file.1, whole: 0 lost by construction.
import fs from 'node:fs';
import fsp from 'node:fs/promises';
import { resolveLogSettings, slotFiles, appFiles } from './settings.js';
import { shiftChain, finishRotation, rotatedFiles } from './rotate.js';

const CHECK_MS = 250;
const MIN_CHECK_MS = 10;
const REOPEN_TIMEOUT_MS = 5000;
const AGENT_VAR = 'SUPER_LOG';
const ATTACHED = Symbol('superd.logs.attached');

export class AppLogs {
  /** @param {{app: import('../master/core/app.js').App, log: import('pino').Logger, home: string}} o */
  constructor({ app, log, home }) {
    this.app = app;
    this.log = log;
    this.home = home;
    this.files = new Map(); // path -> {fd, fh, slot: number|null (null: all slots)}
    this.timer = null;
    this.rotating = new Set(); // paths being rotated: one rotation per file at a time
    this.reported = new Set(); // problems already logged (once each)
  }

  get settings() {
    const c = this.app.config;
    // Configs from before prepareLogs (tests that build an App by hand) get the defaults.
    c.logs ??= resolveLogSettings(c, null, this.home);
    return c.logs;
  }

  /** Paths of slot i (merged apps: the app's files). */
  paths(slot = 0) {
    return slotFiles(this.settings, slot);
  }

  /** Opens the files the app's slots write to; closes those no longer used. */
  async open() {
    const s = this.settings;
    const wanted = new Map();
    if (!s.disabled) {
      for (let i = 0; i < (s.perSlot ? this.app.config.instances : 1); i++) {
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
      const fh = await fsp.open(file, 'a', 0o640);
      if (this.files.has(file)) fh.close();
      else this.files.set(file, { fd: fh.fd, fh, slot });
    }));
    this.#schedule();
  }

  close() {
    clearTimeout(this.timer);
    this.timer = null;
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
      const fd = fs.openSync(file, 'a', 0o640);
      entry = { fd, fh: { close: () => new Promise((resolve) => fs.close(fd, () => resolve())) }, slot };
      this.files.set(file, entry);
      this.#schedule();
    }
    return entry.fd;
  }

  /**
   * Environment for the agent of slot i: where to reopen (the files the app has open) and
   * how to format (from `config`, which a reload's replacement brings; lib/worker/log-format.cjs).
   */
  agentEnv(slot, config = this.app.config) {
    const s = this.settings;
    if (s.disabled) return {};
    const fmt = config.logs ?? s;
    const f = slotFiles(s, slot);
    return { [AGENT_VAR]: JSON.stringify({ out: f.out, err: f.err, type: fmt.type, date: fmt.date, app: this.app.name, slot }) };
  }

  /** Listens to a newly started worker's reports (write errors, recoveries). */
  attach(proc) {
    if (!proc?.child || proc[ATTACHED]) return;
    proc[ATTACHED] = true;
    proc.on('log-error', (m) => this.#once(`write:${m.stream}:${m.code}`, 'warn', { app: this.app.name, slot: m.slot, pid: proc.pid, stream: m.stream, code: m.code }, 'log write failed; lines are dropped until writing works again (logged once)'));
    proc.on('log-resumed', (m) => {
      this.reported.delete(`write:${m.stream}:${m.code}`);
      this.log.info({ app: this.app.name, slot: m.slot, pid: proc.pid, stream: m.stream, dropped: m.dropped }, 'log writing resumed');
    });
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

  /** Rotates one file now (see the diagram above). */
  async rotate(file) {
    const entry = this.files.get(file);
    if (!entry || this.rotating.has(file)) return;
    this.rotating.add(file);
    const s = this.settings;
    try {
      await shiftChain(file, s.retain);
      const fh = await fsp.open(file, 'a', 0o640);
      this.files.set(file, { fd: fh.fd, fh, slot: entry.slot });
      entry.fh.close().catch(() => {});
      const { acked, reason } = await this.reopenWorkers(entry.slot);
      if (acked) await finishRotation(file, s);
      else if (s.compress || s.retain === 0) this.log.warn({ app: this.app.name, file: `${file}.1` }, `rotated file kept as is: ${reason}`);
      this.log.info({ app: this.app.name, file }, 'log rotated');
    } catch (err) {
      this.#once(`rotate:${file}:${err.code}`, 'warn', { app: this.app.name, file, err: err.message }, 'log rotation failed (logged once)');
    } finally {
      this.rotating.delete(file);
    }
  }

  /** Reopens every file from its path (after an external logrotate) and tells the workers. */
  async reopen() {
    const reopened = [];
    for (const [file, entry] of [...this.files]) {
      try {
        const fh = await fsp.open(file, 'a', 0o640);
        this.files.set(file, { fd: fh.fd, fh, slot: entry.slot });
        entry.fh.close().catch(() => {});
        reopened.push(file);
      } catch (err) {
        // keep writing where we were rather than nowhere
        this.log.warn({ app: this.app.name, file, err: err.message }, 'cannot reopen log file; still writing to the old one');
      }
    }
    await this.reopenWorkers(null);
    return reopened;
  }

  /**
   * Asks the live workers (of one slot, or all) to reopen their files; resolves when each
   * acked or exited. Workers without the agent (fork mode, interpreter none) cannot reopen:
   * they keep their descriptors (and so the rotated file) until they restart.
   */
  async reopenWorkers(slot) {
    // A reload's replacement (slot.replacement) writes to the same files as the slot's worker.
    const procs = this.app.slots.filter((s) => slot === null || s.index === slot).flatMap((s) => [s.proc, s.replacement]).filter((p) => p && !p.exited);
    const results = await Promise.all(procs.map((p) => askReopen(p)));
    const missing = results.filter((r) => r !== true);
    return missing.length ? { acked: false, reason: missing[0] } : { acked: true };
  }

  /** Empties the app's log files (truncate: writers go on at offset 0) and removes rotated ones. */
  async flush() {
    const files = appFiles(this.settings, this.app.slots.map((s) => s.index));
    const done = [];
    for (const f of files) {
      await fsp.truncate(f.path, 0).then(() => done.push(f.path), (err) => {
        if (err.code !== 'ENOENT') throw err;
      });
      for (const r of await rotatedFiles(f.path)) await fsp.unlink(r).then(() => done.push(r), () => {});
    }
    return done;
  }
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
