// Whether a log directory is safe for the daemon to create, append to, empty and read files
// in. Anyone who can create entries in it can plant a link or a fifo where a log file goes,
// and make the daemon (root, often) write, truncate (`super flush`) or read (`super logs`)
// another file. So the directory and every directory above it must belong to the daemon's
// user or to root and none may be writable by others; the log directory itself may be
// group-writable only by the daemon's own (primary) group. Above it, a sticky directory
// (/tmp) is fine (others cannot rename or remove what they do not own in it), and so is a
// system directory writable by a group (/var/log is root:syslog 0775 on Debian and Ubuntu).
import fs from 'node:fs/promises';
import path from 'node:path';

/**
 * Why `dir` is not safe (a reason naming the directory), or null when it is.
 * @param {string} dir  an existing directory
 */
export async function unsafeDirReason(dir) {
  if (typeof process.getuid !== 'function' || typeof process.getgid !== 'function') return null;
  const uid = process.getuid();
  const gid = process.getgid();
  let real;
  try {
    real = await fs.realpath(dir);
  } catch (err) {
    return `cannot resolve ${dir}: ${err.code ?? err.message}`;
  }
  for (let d = real, top = true; ; d = path.dirname(d), top = false) {
    const st = await fs.stat(d).catch((/** @type {NodeJS.ErrnoException} */ err) => err);
    if (st instanceof Error) return `cannot check ${d}: ${st.code ?? st.message}`;
    const mode = (st.mode & 0o7777).toString(8);
    if (st.uid !== uid && st.uid !== 0) {
      return `${d} belongs to uid ${st.uid}, not to the daemon's user (uid ${uid}) or root; a log directory and the directories above it must`;
    }
    const sticky = !top && (st.mode & 0o1000) !== 0;
    if ((st.mode & 0o002) && !sticky) return `${d} is writable by others (mode ${mode}); run: chmod o-w ${d}`;
    if ((st.mode & 0o020) && st.gid !== gid && top) {
      return `${d} is writable by group ${st.gid}, not the daemon's group (gid ${gid}) (mode ${mode}); run: chmod g-w ${d}`;
    }
    if (d === path.dirname(d)) return null;
  }
}
