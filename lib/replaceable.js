// What `--force` may replace: a regular file only, never a device (`--out /dev/null` once
// replaced /dev/null with a regular file), a directory, a FIFO, a socket or a symbolic link.
// The replacement itself is always a new file written beside and renamed over the name.
import fs from 'node:fs';
import { typeOf } from './safe-read.js';

/**
 * Throws `toError(reason)` when --force may not replace what is at `file` (a character
 * device, a symbolic link, ...); nothing there, or a regular file, passes.
 * @param {string} file
 * @param {(reason: string) => Error} toError  the caller's coded error
 */
export function refuseUnreplaceable(file, toError) {
  const what = unreplaceableKind(fs.lstatSync(file, { throwIfNoEntry: false }));
  if (what) throw toError(notReplaceableReason(file, what));
}

/**
 * The same from an lstat of the name (undefined or null when nothing is there).
 * @param {fs.Stats|null|undefined} st
 */
export function unreplaceableKind(st) {
  return !st || st.isFile() ? null : typeOf(st);
}

/** The one-line reason for a refusal (the caller puts it in its own coded error). */
export const notReplaceableReason = (file, what) => `${file} is ${what}; --force replaces only a regular file: give another --out`;
