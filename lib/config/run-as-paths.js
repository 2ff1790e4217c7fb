// What an app run as another user (`uid`) may be given: only what that user could reach by
// itself, as its listen paths are checked (docs/run-as-user.md). The daemon, as root,
// changes into the app's cwd before it drops to the user, and opens the app's log files
// for it: a cwd in a 0700 root directory, or an out_file in /etc, would hand the user what
// it could never open. Owner, group and other bits, as lib/user-access.js reads them.
import fs from 'node:fs';
import path from 'node:path';
import { canAccess } from '../user-access.js';

/** @typedef {{uid: number, gid: number}} User */

const modeOf = (st) => `owner ${st.uid}, group ${st.gid}, mode ${(st.mode & 0o7777).toString(8)}`;

/**
 * Why `who` could not enter `dir` (search on it and on every directory above), or null.
 * @param {string} dir  absolute
 * @param {User} who
 */
export function cannotEnter(dir, who) {
  for (let d = dir; ; d = path.dirname(d)) {
    const st = fs.statSync(d, { throwIfNoEntry: false });
    if (st && !canAccess(st, who, 0o1)) return `uid ${who.uid} may not enter ${d} (${modeOf(st)})`;
    if (d === path.dirname(d)) return null;
  }
}

/**
 * Why `who` could not append to `file` by itself, or null: an existing file it may write,
 * or (absent, or `created`: superd makes files beside it, one per worker) a directory it may
 * write in; either reached through directories it may enter.
 * @param {string} file  absolute
 * @param {User} who
 * @param {{created?: boolean}} [o]
 */
export function cannotAppend(file, who, { created = false } = {}) {
  const st = created ? undefined : fs.statSync(file, { throwIfNoEntry: false });
  if (st) return canAccess(st, who, 0o2) ? cannotEnter(path.dirname(file), who) : `uid ${who.uid} may not write ${file} (${modeOf(st)})`;
  let dir = path.dirname(file);
  while (!fs.existsSync(dir) && dir !== path.dirname(dir)) dir = path.dirname(dir);
  const dst = fs.statSync(dir);
  return canAccess(dst, who, 0o3) ? cannotEnter(path.dirname(dir), who) : `uid ${who.uid} may not create files in ${dir} (${modeOf(dst)})`;
}
