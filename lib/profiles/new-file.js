// Files the CLI writes or reads beside a diagnostic: the flame graph next to a profile, a
// copy fetched over --host. Those directories may be writable by the worker being profiled
// (another user with `uid:`, or the app itself), which could plant a symbolic link at the
// name root is about to write (or read) and make it write through the link. So a file is
// created with O_EXCL|O_NOFOLLOW (a link there fails the open, it is never followed), an
// existing file is replaced only with --force and then by the rename of a fresh file (which
// replaces a link, never writes through it), and a file is read only when it is a regular
// file reached without a link.
import fs from 'node:fs';
import path from 'node:path';
import { randomBytes } from 'node:crypto';
import { SuperError } from '../errors.js';
import { readFileSafeSync, UnsafeFileError } from '../safe-read.js';
import { refuseUnreplaceable } from '../replaceable.js';

/** E_USAGE: what --force may not replace (a device, a directory, a link...). */
const usageError = (reason) => new SuperError('E_USAGE', reason);

const { O_WRONLY, O_CREAT, O_EXCL, O_NOFOLLOW } = fs.constants;
const CREATE = O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW;

/** The refusal of an existing `file` (or a link at its name). */
export const existsError = (file) => new SuperError('E_USAGE', `${file} exists; give another --out, or --force to replace it (superd never writes through an existing file or link)`);

/**
 * Opens `file` for writing as a new file (0600). Without force it must not exist; with
 * force it is written beside (.<name>.<random>.tmp) and renamed over it at commit().
 * @param {string} file  @param {{force?: boolean}} o
 * @returns {{fd: number, commit: () => void, abort: () => void}}  one of them must be called
 */
export function openNewFile(file, { force = false } = {}) {
  if (force) refuseUnreplaceable(file, usageError);
  const target = force ? path.join(path.dirname(file), `.${path.basename(file)}.${randomBytes(6).toString('hex')}.tmp`) : file;
  let fd;
  try {
    fd = fs.openSync(target, CREATE, 0o600);
  } catch (err) {
    if (err.code === 'EEXIST' && !force) throw existsError(file);
    throw new SuperError('E_USAGE', `cannot create ${target}: ${err.code ?? err.message}`);
  }
  let done = false;
  const close = () => {
    if (done) return false;
    done = true;
    fs.closeSync(fd);
    return true;
  };
  return {
    fd,
    commit() {
      if (!close()) return;
      if (target === file) return;
      try {
        refuseUnreplaceable(file, usageError); // again: it may have changed while written
      } catch (err) {
        fs.rmSync(target, { force: true });
        throw err;
      }
      fs.renameSync(target, file);
    },
    abort() {
      if (close()) fs.rmSync(target, { force: true });
    },
  };
}

/** Writes `data` to the new file `file` (openNewFile): all of it, or no file. */
export function writeNewFile(file, data, o) {
  const f = openNewFile(file, o);
  try {
    fs.writeFileSync(f.fd, data);
    f.commit();
  } catch (err) {
    f.abort();
    throw err;
  }
}

/**
 * Reads `file` only if it is a regular file of at most `maxBytes`, reached without a link
 * at its name (O_NOFOLLOW; O_NONBLOCK, so a FIFO put there cannot hang the read).
 * @returns {Buffer}
 */
export function readRegularFile(file, maxBytes) {
  try {
    return readFileSafeSync(file, { max: maxBytes, follow: false });
  } catch (err) {
    if (!(err instanceof UnsafeFileError)) throw new SuperError('E_USAGE', `cannot read ${file}: ${err.code ?? err.message}`);
    if (err.code === 'ELOOP') throw new SuperError('E_USAGE', `${file} is a symbolic link; refusing to read through it`);
    if (err.code === 'ENOTREG') throw new SuperError('E_USAGE', `${file} is not a regular file; refusing to read it`);
    throw new SuperError('E_USAGE', `${file}: ${err.reason}`);
  }
}
