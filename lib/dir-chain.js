// Whether the directories above a path are safe to trust: whoever can rename an entry of one
// of them can move the path aside and put their own in its place (a SUPER_HOME with a planted
// `token`, say). So each directory from the path's parent up to `/` must belong to root or to
// the daemon's user and be writable by neither group nor others, unless it is sticky (/tmp:
// others cannot rename or remove what they do not own in it); a symbolic link on the way
// must belong to root or the daemon's user too (its owner can point it elsewhere). The same
// rule as sshd's StrictModes and sudo's checks of their files. Linux only; synchronous (a
// few stat calls, once at start).
import fs from 'node:fs';
import path from 'node:path';

/**
 * Why the directories above `target` are not safe (a sentence naming the directory and what
 * to do), or null when they are.
 * @param {string} target  an absolute path
 * @param {number} [uid]  the daemon's user
 */
export function unsafeAncestorReason(target, uid = process.getuid?.()) {
  if (uid === undefined) return null;
  const abs = path.resolve(target);
  const owned = (st) => st.uid === 0 || st.uid === uid;
  // The path as written: a link on it, and the directories that hold each link.
  for (let p = abs; ; p = path.dirname(p)) {
    const lst = fs.lstatSync(p, { throwIfNoEntry: false });
    if (lst?.isSymbolicLink() && !owned(lst)) {
      return `${p} is a symbolic link that belongs to uid ${lst.uid}, not to root or the daemon's user (uid ${uid}); use a path without it`;
    }
    if (p === path.dirname(p)) break;
  }
  // The directories as written, and where they really are (from the deepest one that exists).
  let existing = abs;
  while (!fs.existsSync(existing) && existing !== path.dirname(existing)) existing = path.dirname(existing);
  let real;
  try {
    real = fs.realpathSync(existing);
  } catch (err) {
    return `cannot resolve ${existing}: ${err.code ?? err.message}`;
  }
  const chains = existing === abs ? [path.dirname(abs), path.dirname(real)] : [existing, real];
  for (const start of chains) {
    for (let d = start; ; d = path.dirname(d)) {
      const why = unsafeDirReason(d, uid, owned);
      if (why) return why;
      if (d === path.dirname(d)) break;
    }
  }
  return null;
}

function unsafeDirReason(d, uid, owned) {
  let st;
  try {
    st = fs.statSync(d);
  } catch (err) {
    return `cannot check ${d}: ${err.code ?? err.message}`;
  }
  const mode = (st.mode & 0o7777).toString(8);
  if (!owned(st)) return `${d} belongs to uid ${st.uid}, not to root or the daemon's user (uid ${uid}), so that user could replace what is inside; use a directory whose parents are root's or yours, or run: chown root ${d}`;
  if ((st.mode & 0o022) && !(st.mode & 0o1000)) {
    return `${d} is writable by ${st.mode & 0o002 ? 'others' : `group ${st.gid}`} (mode ${mode}) and not sticky, so they could replace what is inside; run: chmod go-w ${d}`;
  }
  return null;
}
