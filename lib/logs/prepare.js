// The log side of a start, as a check-then-apply pair: checkLogs looks (every file an app
// will write can be created or appended to) and changes nothing, so a start refused for
// any reason leaves no file behind and the daemon's log rotation as it was; applyLogs
// then sets daemon.log's rotation and creates the default log directory. An unwritable or
// missing log directory refuses the whole `start` (E_LOG_PATH, exit 2), naming the path,
// instead of starting workers whose output would go nowhere.
import fs from 'node:fs/promises';
import { constants as C } from 'node:fs';
import path from 'node:path';
import { SuperError } from '../errors.js';
import { slotFiles } from './settings.js';
import { setDaemonLogRotation } from './daemon-log.js';
import { unsafeDirReason } from './safe-dir.js';

/**
 * @typedef {object} LogPlan
 * @property {object|null} rotation  the file's `logs:` block for daemon.log (null: unchanged)
 * @property {string[]} dirs  log directories to create (the default one, $SUPER_HOME/logs, and
 *   those of a PM2 file's log paths)
 */

/**
 * Checks that every log file of `apps` can be written, without creating any.
 * @param {{name: string, instances: number, logs: object}[]} apps  normalized configs (lib/config)
 * @param {object} [defaults]  the file's `logs:` block (lib/config normalize-daemon); absent
 *   for a saved dump, which leaves daemon.log's rotation as it is
 * @returns {Promise<LogPlan>}
 * @throws {SuperError} E_LOG_PATH naming every file that cannot be written
 */
export async function checkLogs(apps, defaults) {
  const problems = [];
  const dirs = new Set();
  const checked = new Map(); // dir -> its safety check (a promise), once per directory
  const unsafeDir = (dir) => {
    if (!checked.has(dir)) checked.set(dir, unsafeDirReason(dir));
    return checked.get(dir);
  };
  await Promise.all(apps.map(async (app) => {
    const { logs } = app;
    if (logs.disabled) return;
    if (logs.createDir) dirs.add(logs.dir);
    const files = new Set();
    for (let i = 0; i < app.instances; i++) {
      const f = slotFiles(logs, i);
      files.add(f.out).add(f.err);
      if (!logs.perSlot) break;
    }
    for (const file of files) {
      // A PM2 file's log paths: their directories are created if missing, as PM2 does.
      if (logs.createFileDirs) dirs.add(path.dirname(file));
      const why = await cannotAppend(file, logs.createFileDirs ? path.dirname(file) : logs.createDir ? logs.dir : null, unsafeDir);
      if (why) problems.push(`${app.name}: cannot write log file ${file}: ${why}`);
    }
  }));
  if (problems.length) {
    throw new SuperError('E_LOG_PATH', problems.length === 1 ? problems[0] : `${problems.length} log files cannot be written; nothing was started`, problems.length > 1 ? { problems } : undefined);
  }
  return { rotation: defaults ?? null, dirs: [...dirs] };
}

/** Applies what checkLogs planned. */
export async function applyLogs({ rotation, dirs }) {
  if (rotation) setDaemonLogRotation(rotation);
  for (const dir of dirs) {
    try {
      await fs.mkdir(dir, { recursive: true });
    } catch (err) {
      throw new SuperError('E_LOG_PATH', `cannot create the log directory ${dir}: ${err.code ?? err.message}`);
    }
  }
}

/**
 * Why `file` could not be opened for appending (a reason naming the directory), or null.
 * @param {string|null} ownDir  a directory we create when missing (its nearest existing
 *   ancestor must then be writable)
 * @param {(dir: string) => Promise<string|null>} unsafeDir  why a directory is unsafe (safe-dir.js), or null
 */
async function cannotAppend(file, ownDir, unsafeDir) {
  const dir = path.dirname(file);
  const st = await fs.lstat(file).catch((/** @type {NodeJS.ErrnoException} */ err) => err);
  if (!(st instanceof Error)) {
    if (st.isDirectory()) return 'it is a directory; give a file path';
    if (st.isSymbolicLink()) return 'it is a symbolic link; log files are never opened through a link';
    return (await notWritable(file, dir, C.W_OK)) ?? unsafeDir(dir);
  }
  if (st.code === 'ENOTDIR') return `${dir} is not a directory`;
  if (st.code !== 'ENOENT') return notWritableReason(st, dir);
  const dirSt = await fs.stat(dir).catch((/** @type {NodeJS.ErrnoException} */ err) => err);
  if (dirSt instanceof Error) {
    if (dirSt.code === 'ENOTDIR') return `${dir} is not a directory`;
    if (dirSt.code !== 'ENOENT') return notWritableReason(dirSt, dir);
    if (ownDir && (dir === ownDir || dir.startsWith(ownDir + path.sep))) {
      const ancestor = await existingAncestor(dir);
      return (await notWritable(ancestor, dir, C.W_OK | C.X_OK)) ?? unsafeDir(ancestor);
    }
    return `directory ${dir} does not exist; create it or fix the path`;
  }
  if (!dirSt.isDirectory()) return `${dir} is not a directory`;
  return (await notWritable(dir, dir, C.W_OK | C.X_OK)) ?? unsafeDir(dir);
}

async function notWritable(target, dir, mode) {
  try {
    await fs.access(target, mode);
    return null;
  } catch (err) {
    return notWritableReason(err, dir);
  }
}

function notWritableReason(err, dir) {
  if (err.code === 'EACCES' || err.code === 'EPERM' || err.code === 'EROFS') return `${err.code}: ${dir} is not writable by the daemon (uid ${process.getuid?.()})`;
  return err.code ?? err.message;
}

async function existingAncestor(dir) {
  for (let d = dir; ; d = path.dirname(d)) {
    if (await fs.stat(d).then((s) => s.isDirectory(), () => false)) return d;
    if (d === path.dirname(d)) return d;
  }
}
