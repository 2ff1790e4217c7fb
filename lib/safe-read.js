// The one way superd reads a file that someone else may control (an ecosystem file, a
// `package.json` in an app's directory, a script's first bytes, a dump, a TLS key, a log
// file for `super logs`, a PM2 file): whatever sits at the name, the reader gets at most
// `max` bytes of a regular file, or a coded refusal, and never hangs.
//
// - O_NONBLOCK: a FIFO put at the name cannot hang the open (a blocked thread cannot be
//   ended, not even by Worker.terminate());
// - the type is checked on the open descriptor (fstat), so a device (/dev/zero never ends)
//   or a FIFO swapped in after any earlier check is refused too;
// - at most `max` bytes are read, whatever the size said (a file may grow while read);
// - `follow: false` adds O_NOFOLLOW (a link at the name is refused) for files only superd
//   writes;
// - a root reader reads a file under a path another user controls with that user's rights:
//   an entry on the path (a directory, the file, a link) that belongs to a user other than
//   root and the daemon's, and the app's user (`as`) when the file belongs to a `uid` app,
//   must each be able to read the file where it really is (read on the file, search on
//   every directory above its real path, checked on the descriptor), else EACCES. So a
//   link planted by an app's user reaches only what that user could read anyway. A file
//   reached through a link below a directory that group or others may write (not sticky)
//   is refused: anyone could have put the link there;
// - the async read has a deadline (a hung network file system).
//
// The checks are written once as a generator of file-system steps, run by a synchronous
// driver (the config thread, the CLI: package.json while resolving a script) or an
// asynchronous one (the daemon's loop: dumps, TLS files, logs).
import fs from 'node:fs';
import fsp from 'node:fs/promises';
import path from 'node:path';
import { canAccess } from './user-access.js';

const { O_RDONLY, O_NONBLOCK, O_NOFOLLOW } = fs.constants; // libuv adds O_CLOEXEC
const KiB = 1024;
const MiB = 1024 * KiB;

/** What each kind of file may hold (docs/security.md, "Limits and bounds"). */
export const READ_BOUNDS = Object.freeze({
  ecosystem: MiB, // the ecosystem file (YAML, JSON, JS/TS source)
  packageJson: MiB, // a directory's package.json (a script's entry, `npm start`, a JS/TS file's module type)
  scriptHead: 512, // the first bytes of a script without extension (its #! line)
  tsSource: MiB, // a TypeScript module a JS/TS ecosystem file imports
  dump: 64 * MiB, // $SUPER_HOME/dump.json (1,000 apps with their environments)
  tls: MiB, // a certificate or key of the control listener
  pm2Source: 16 * MiB, // a PM2 dump or ecosystem file for `super import pm2`
});

/** The deadline of an asynchronous read. */
const READ_TIMEOUT_MS = 10_000;

/**
 * A refused read: `code` is ELOOP (a link where none may be), ENOTREG (a directory, FIFO,
 * device, socket), EFBIG (over the bound), EACCES (a user on the path may not read it),
 * ETIMEDOUT (the deadline passed); `reason` says so in a few words, for a one-line error.
 */
export class UnsafeFileError extends Error {
  /**
   * @param {string} code
   * @param {string} file
   * @param {string} reason
   */
  constructor(code, file, reason) {
    super(`${file}: ${reason}`);
    this.code = code;
    this.file = file;
    this.reason = reason;
    /** ENOTREG: what it is instead (`a FIFO`, `a directory`, ...) */
    this.what = '';
  }
}

/**
 * @typedef {object} SafeReadOptions
 * @property {number} max  bytes the file may hold
 * @property {boolean} [follow=true]  false: a link at the name is refused (ELOOP)
 * @property {boolean} [head]  read the first `max` bytes of a larger file instead of refusing it
 * @property {{uid: number, gid: number}|null} [as]  the file belongs to an app run as this user
 * @property {number} [timeoutMs]  async only: READ_TIMEOUT_MS by default
 */

/**
 * The file's bytes (at most `max`).
 * @param {string} file
 * @param {SafeReadOptions} opts
 * @returns {Buffer}
 * @throws {UnsafeFileError|NodeJS.ErrnoException} ENOENT and other open errors as they are
 */
export function readFileSafeSync(file, opts) {
  return runSync(readSteps(file, opts));
}

/**
 * The file's bytes (at most `max`), read off the loop, within a deadline.
 * @param {string} file
 * @param {SafeReadOptions} opts
 * @returns {Promise<Buffer>}
 */
export function readFileSafe(file, opts) {
  return withDeadline(file, opts, (closers) => runAsync(readSteps(file, opts), closers));
}

/**
 * An open handle on the file after the same checks (for a reader that streams: log files).
 * The caller closes it.
 * @param {string} file
 * @param {Omit<SafeReadOptions, 'max'> & {max?: number}} opts
 * @returns {Promise<import('node:fs/promises').FileHandle>}
 */
export function openSafe(file, opts) {
  return withDeadline(file, opts, (closers) => runAsync(openSteps(file, { max: Infinity, ...opts }), closers, true));
}

/**
 * What a file that is not a regular one is, in words (`a FIFO`, `a directory`, ...), for a refusal.
 * @param {fs.Stats} st
 */
export function typeOf(st) {
  if (st.isSymbolicLink()) return 'a symbolic link'; // from an lstat
  if (st.isDirectory()) return 'a directory';
  if (st.isFIFO()) return 'a FIFO';
  if (st.isCharacterDevice()) return 'a character device';
  if (st.isBlockDevice()) return 'a block device';
  if (st.isSocket()) return 'a socket';
  return 'not a regular file';
}

/** @param {string} file @param {SafeReadOptions} opts */
function* readSteps(file, opts) {
  const { fd, size } = yield* openSteps(file, opts);
  try {
    // Sized by fstat, grown while the file grows: one byte past the bound is enough to refuse.
    let buf = Buffer.alloc(Math.min(size, opts.max) + (opts.head ? 0 : 1));
    let n = 0;
    for (;;) {
      const got = yield { op: 'read', fd, buf, at: n };
      n += got;
      if (opts.head && n === opts.max) return buf.subarray(0, n);
      if (n > opts.max) throw new UnsafeFileError('EFBIG', file, `holds more than the ${opts.max} bytes read here`);
      if (got === 0) return buf.subarray(0, n);
      if (n === buf.length) buf = Buffer.concat([buf, Buffer.alloc(Math.min(buf.length, opts.max + 1 - buf.length))]);
    }
  } finally {
    yield { op: 'close', fd };
  }
}

/**
 * Opens and checks; returns {fd, size}. The fd is closed on a refusal.
 * @param {string} file
 * @param {SafeReadOptions} opts
 */
function* openSteps(file, opts) {
  const abs = path.resolve(file);
  const flags = O_RDONLY | O_NONBLOCK | (opts.follow === false ? O_NOFOLLOW : 0);
  let fd;
  try {
    fd = yield { op: 'open', path: abs, flags };
  } catch (err) {
    if (err.code === 'ELOOP' && opts.follow === false) throw new UnsafeFileError('ELOOP', file, 'is a symbolic link; superd does not read this file through one');
    throw err;
  }
  try {
    const st = yield { op: 'fstat', fd };
    if (!st.isFile()) throw Object.assign(new UnsafeFileError('ENOTREG', file, `is ${typeOf(st)}, not a regular file`), { what: typeOf(st) });
    if (st.size > opts.max && !opts.head) throw new UnsafeFileError('EFBIG', file, `is ${st.size} bytes, more than the ${opts.max} read here`);
    if (isRoot()) yield* checkReaders(file, abs, fd, st, opts.as ?? null);
    return { fd, size: st.size };
  } catch (err) {
    yield { op: 'close', fd };
    throw err;
  }
}

const isRoot = () => process.getuid?.() === 0;

/**
 * A root reader: everyone who controls the path must be able to read the file where it is.
 * @param {string} file  as given, for messages
 * @param {string} abs
 * @param {number} fd
 * @param {fs.Stats} st  of the descriptor
 * @param {{uid: number, gid: number}|null} as
 */
function* checkReaders(file, abs, fd, st, as) {
  const daemonUid = process.getuid?.();
  const trusted = (s) => s.uid === 0 || s.uid === daemonUid;
  const readers = new Map(); // uid -> {uid, gid, why}
  if (as && as.uid !== 0) readers.set(as.uid, { ...as, why: `the app's user (uid ${as.uid})` });
  let sharedDir = null; // a directory on the written path that group or others may write, not sticky
  for (let p = abs; ; p = path.dirname(p)) {
    const lst = yield { op: 'lstat', path: p };
    if (lst && !trusted(lst) && !readers.has(lst.uid)) readers.set(lst.uid, { uid: lst.uid, gid: lst.gid, why: `uid ${lst.uid}, owner of ${p}` });
    if (lst?.isDirectory() && (lst.mode & 0o022) && !(lst.mode & 0o1000)) sharedDir ??= p;
    if (p === path.dirname(p)) break;
  }
  const real = yield { op: 'where', fd };
  if (sharedDir && real !== abs) throw new UnsafeFileError('EACCES', file, `is reached through a link below ${sharedDir}, which others may write; use the real path ${real}`);
  if (readers.size === 0) return;
  // The real path's directories count too: their owners could move the file.
  const above = [];
  for (let d = path.dirname(real); ; d = path.dirname(d)) {
    const dst = yield { op: 'stat', path: d };
    above.push([d, dst]);
    if (dst && !trusted(dst) && !readers.has(dst.uid)) readers.set(dst.uid, { uid: dst.uid, gid: dst.gid, why: `uid ${dst.uid}, owner of ${d}` });
    if (d === path.dirname(d)) break;
  }
  for (const who of readers.values()) {
    if (!canAccess(st, who, 0o4)) throw new UnsafeFileError('EACCES', file, `${real} is not readable by ${who.why}, who controls this path; superd reads it with that user's rights`);
    for (const [d, dst] of above) {
      if (!dst || !canAccess(dst, who, 0o1)) throw new UnsafeFileError('EACCES', file, `${who.why}, who controls this path, may not enter ${d}; superd reads it with that user's rights`);
    }
  }
}

function runSync(steps) {
  let input;
  let failure = null;
  for (;;) {
    const { value, done } = failure ? steps.throw(failure.err) : steps.next(input);
    failure = null;
    if (done) return value;
    try {
      input = syncStep(value);
    } catch (err) {
      failure = { err };
    }
  }
}

function syncStep(s) {
  switch (s.op) {
    case 'open': return fs.openSync(s.path, s.flags);
    case 'fstat': return fs.fstatSync(s.fd);
    case 'lstat': return fs.lstatSync(s.path, { throwIfNoEntry: false }) ?? null;
    case 'stat': return fs.statSync(s.path, { throwIfNoEntry: false }) ?? null;
    case 'where': return fs.readlinkSync(`/proc/self/fd/${s.fd}`);
    case 'read': return fs.readSync(s.fd, s.buf, s.at, s.buf.length - s.at, s.at);
    case 'close': return fs.closeSync(s.fd);
    default: throw new Error(`unknown step ${s.op}`);
  }
}

const asyncStep = {
  open: (s) => fsp.open(s.path, s.flags),
  fstat: (s) => s.fd.stat(),
  lstat: (s) => fsp.lstat(s.path).catch((err) => (err.code === 'ENOENT' ? null : Promise.reject(err))),
  stat: (s) => fsp.stat(s.path).catch((err) => (err.code === 'ENOENT' ? null : Promise.reject(err))),
  where: (s) => fsp.readlink(`/proc/self/fd/${s.fd.fd}`),
  read: async (s) => (await s.fd.read(s.buf, s.at, s.buf.length - s.at, s.at)).bytesRead,
  close: (s) => s.fd.close(),
};

/**
 * Runs the steps with fs/promises (a FileHandle stands for the fd). With `keepOpen`, the
 * steps' result {fd} is returned as the handle, open.
 * @param {Generator} steps
 * @param {Set<() => void>} closers  handles to close if the deadline passes first
 */
async function runAsync(steps, closers, keepOpen = false) {
  let input;
  let failure = null;
  for (;;) {
    const { value, done } = failure ? steps.throw(failure.err) : steps.next(input);
    failure = null;
    if (done) return keepOpen ? value.fd : value;
    try {
      input = await asyncStep[value.op](value);
      if (value.op === 'open') closers.add(input);
      if (value.op === 'close') closers.delete(value.fd);
    } catch (err) {
      failure = { err };
    }
  }
}

/**
 * Runs `work` within the deadline; past it, refuses with ETIMEDOUT and closes what it opened.
 * @template T
 * @param {string} file
 * @param {{timeoutMs?: number}} opts
 * @param {(closers: Set<any>) => Promise<T>} work
 * @returns {Promise<T>}
 */
function withDeadline(file, { timeoutMs = READ_TIMEOUT_MS }, work) {
  const closers = new Set();
  let timer;
  const late = new Promise((_, reject) => {
    timer = setTimeout(() => reject(new UnsafeFileError('ETIMEDOUT', file, `could not be read within ${timeoutMs} ms`)), timeoutMs);
    timer.unref();
  });
  const job = work(closers);
  return Promise.race([job, late]).finally(() => clearTimeout(timer)).catch((err) => {
    // Abandoned: whatever the read still holds is closed once it ends.
    if (err.code === 'ETIMEDOUT') {
      job.then((out) => /** @type {any} */ (out)?.close?.(), () => {}).finally(() => {
        for (const fh of closers) fh.close().catch(() => {});
      });
    }
    throw err;
  });
}
