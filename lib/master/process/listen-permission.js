// What a worker's user may listen on by itself: the decisions of listen-guard.js, kept free
// of cluster so they can be tested alone. Permissions follow the classic owner / group /
// other bits (a worker started with uid/gid has no supplementary groups: libuv drops them);
// ACLs are not read, so an ACL that grants more is not seen (refused: the safe side).
import fs from 'node:fs';
import path from 'node:path';
import { canAccess } from '../../user-access.js';

// sun_path holds 108 bytes with its terminating NUL.
const SUN_PATH_MAX = 107;

/** The lowest port any user may bind (net.ipv4.ip_unprivileged_port_start; 1024 when unknown). */
export function unprivilegedPortStart() {
  try {
    const n = Number(fs.readFileSync('/proc/sys/net/ipv4/ip_unprivileged_port_start', 'utf8'));
    return Number.isInteger(n) && n >= 0 ? n : 1024;
  } catch {
    return 1024;
  }
}

/**
 * Why `who` may not bind this port, or null. Port 0 (any free port) and ports from
 * `firstFree` up are everyone's; below, only with the app's allow_privileged_ports.
 */
export function portRefusal(port, { allowPrivileged, firstFree }) {
  if (!Number.isInteger(port) || port <= 0 || port >= firstFree || allowPrivileged) return null;
  return `port ${port} is privileged (below ${firstFree}) and the app runs as another user; set allow_privileged_ports: true in its config to let it`;
}

/**
 * Opens the directory a unix socket at `abs` would be created in, and checks that `who`
 * could create it there: search on every directory above, write and search on the
 * directory itself (checked on the open descriptor, so on the very directory the bind will
 * use). Returns {fd, bindPath} (the caller closes fd) or {refusal}.
 * @param {string} abs  an absolute path
 * @param {{uid: number, gid: number}} who
 * @returns {{fd: number, bindPath: string, refusal?: undefined} | {refusal: string, fd?: undefined, bindPath?: undefined}}
 */
export function openSocketDir(abs, who) {
  const dir = path.dirname(abs);
  let fd;
  try {
    fd = fs.openSync(dir, fs.constants.O_RDONLY | fs.constants.O_DIRECTORY);
  } catch (err) {
    return { refusal: `cannot open ${dir} (${err.code ?? err.message})` };
  }
  const refusal = dirRefusal(fd, who);
  const bindPath = `/proc/self/fd/${fd}/${path.basename(abs)}`;
  if (!refusal && Buffer.byteLength(bindPath) <= SUN_PATH_MAX) return { fd, bindPath };
  fs.closeSync(fd);
  return { refusal: refusal ?? `the socket name ${path.basename(abs)} is too long` };
}

function dirRefusal(fd, who) {
  const st = fs.fstatSync(fd);
  const real = fs.readlinkSync(`/proc/self/fd/${fd}`);
  if (!canAccess(st, who, 0o3)) return `uid ${who.uid} may not create files in ${real} (owner ${st.uid}, group ${st.gid}, mode ${(st.mode & 0o7777).toString(8)})`;
  for (let d = path.dirname(real); ; d = path.dirname(d)) {
    const above = fs.statSync(d, { throwIfNoEntry: false });
    if (!above || !canAccess(above, who, 0o1)) return `uid ${who.uid} may not enter ${d}`;
    if (d === path.dirname(d)) return null;
  }
}
