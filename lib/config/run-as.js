// uid/gid: user and group names -> numbers (from /etc/passwd and /etc/group), for
// child_process and cluster.setupPrimary. Only root may start processes as another user.
import fs from 'node:fs';

/**
 * @param {{ uid?: number|string, gid?: number|string }} keys  as written (undefined when absent)
 * @param {boolean} isRoot  whether the daemon runs as root
 * @param {(key: string, message: string) => void} report
 * @returns {{ uid: number|null, gid: number|null }}
 */
export function resolveUser({ uid, gid }, isRoot, report) {
  if (uid === undefined && gid === undefined) return { uid: null, gid: null };
  if (!isRoot) {
    const key = uid !== undefined ? 'uid' : 'gid';
    report(key, `needs the daemon to run as root (it runs as uid ${process.getuid?.()}); remove uid/gid, or run superd as root`);
    return { uid: null, gid: null };
  }
  let user = null;
  if (uid !== undefined) {
    user = lookup('/etc/passwd', uid);
    if (!user && typeof uid === 'string') report('uid', `no user named "${uid}" in /etc/passwd; give an existing user name or a uid number`);
  }
  let group = null;
  if (gid !== undefined) {
    group = lookup('/etc/group', gid);
    if (!group && typeof gid === 'string') report('gid', `no group named "${gid}" in /etc/group; give an existing group name or a gid number`);
  }
  return {
    uid: typeof uid === 'number' ? uid : user ? Number(user[2]) : null,
    // Without gid, the user's own group: never the daemon's (root's).
    gid: typeof gid === 'number' ? gid : group ? Number(group[2]) : user ? Number(user[3]) : null,
  };
}

/** The line (split on ":") of /etc/passwd or /etc/group whose name or number is `id`. */
function lookup(file, id) {
  let text = '';
  try {
    text = fs.readFileSync(file, 'utf8');
  } catch {
    return null;
  }
  const field = typeof id === 'number' ? 2 : 0;
  for (const line of text.split('\n')) {
    const parts = line.split(':');
    if (parts.length > 3 && parts[field] === String(id)) return parts;
  }
  return null;
}
