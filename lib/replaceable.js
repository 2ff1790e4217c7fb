// What `--force` may replace: a regular file only, never a device (`--out /dev/null` once
// replaced /dev/null with a regular file), a directory, a FIFO, a socket or a symbolic link.
// The replacement itself is always a new file written beside and renamed over the name.
import fs from 'node:fs';
import { typeOf } from './safe-read.js';

/**
 * What is at `file` when --force may not replace it (`a character device`, `a symbolic
 * link`, ...), or null: nothing there, or a regular file.
 * @param {string} file
 */
export function notReplaceable(file) {
  return unreplaceableKind(fs.lstatSync(file, { throwIfNoEntry: false }));
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
