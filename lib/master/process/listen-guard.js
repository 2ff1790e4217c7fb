// Workers of an app with `uid:` run as that user, but in node:cluster their listen() is
// done by the primary, this daemon (root): lib/internal/cluster/primary.js queryServer
// builds the server (RoundRobinHandle) or the handle (SharedHandle, `scheduling: os`) from
// the worker's 'queryServer' message. Unchecked, such an app gets a root-owned socket in
// any directory (`listen('/root/dir/x.sock')`), a privileged port, or one of the daemon's
// own descriptors (`listen({fd})` names a descriptor of the primary). The worker is not
// trusted (it can send any query, with or without the agent), so each query is checked
// here, in the primary, against what the worker's user could do by itself:
//   - a TCP or UDP port below net.ipv4.ip_unprivileged_port_start (1024): only with the
//     app's allow_privileged_ports;
//   - a unix socket path: the user must be able to enter every directory above it and
//     write in its directory. The primary then binds it through a descriptor of that very
//     directory, held while the server lives (/proc/self/fd/N/name, as systemd does for
//     long paths): a directory renamed or swapped for a link after the check redirects
//     neither the bind nor the unlink Node does when the server closes. The socket is
//     given to the user, as if it had made it;
//   - an abstract socket ('\0name'): allowed (no file);
//   - a descriptor: refused.
// A refused query gets the reply Node sends for a failed bind (the seam sends it): the
// app's listen() emits 'error' with EACCES, and its agent first prints why on its stderr.
// Apps run as the daemon's own user are not watched. Cost: one check per listen() call of
// such a worker, nothing per connection.
import fs from 'node:fs';
import path from 'node:path';
import { openSocketDir, portRefusal, unprivilegedPortStart } from './listen-permission.js';

// Servers one such worker may have the daemon hold (each a listening socket in the daemon,
// a directory descriptor too for a unix path): a worker forging queries must not exhaust
// the daemon's descriptors.
export const MAX_SERVERS_PER_WORKER = 256;

/** bind path -> {fd, abs, users: Map<worker, count>, given: boolean}: directories held for live servers. */
const held = new Map();
/** socket path as the app gave it (absolute) -> its bind path while held */
const bindPathOf = new Map();

/**
 * The watch of one worker's listen queries (cluster-internals/worker-hooks.js ListenWatch),
 * for a worker run as another user (app.uid); null for the daemon's own user. The seam
 * puts it first, before any other watch, from the worker's first message on.
 * @param {{uid: number|null, gid: number|null, allow_privileged_ports?: boolean}} app
 * @returns {import('./cluster-internals/worker-hooks.js').ListenWatch|null}
 */
export function listenGuard(app) {
  const { geteuid, getegid } = process; // POSIX's, where superd runs (uid needs them)
  if (app.uid == null || !geteuid || !getegid || app.uid === geteuid()) return null;
  const who = { uid: app.uid, gid: app.gid ?? getegid() };
  const me = {}; // this worker, in `held`
  const pending = new Map(); // query seq -> bind path (null: a port), until the reply
  const keys = new Map(); // key of a server it listens on -> bind path (null: a port)
  return {
    query(q) {
      if (pending.size + keys.size >= MAX_SERVERS_PER_WORKER || pending.has(q.seq)) {
        return { refuse: `more than ${MAX_SERVERS_PER_WORKER} servers in one worker` };
      }
      const verdict = check(q, who, app.allow_privileged_ports === true);
      if (verdict.refusal) return { refuse: verdict.refusal };
      pending.set(q.seq, verdict.bindPath ?? null);
      if (!verdict.bindPath) return;
      use(verdict.bindPath, me, +1);
      return { rewrite: { address: verdict.bindPath } };
    },
    answered(seq, { key, errno }) {
      if (!pending.has(seq)) return;
      const bindPath = pending.get(seq);
      pending.delete(seq);
      if (errno) use(bindPath, me, -1);
      else {
        keys.set(key, bindPath);
        giveSocket(bindPath, who);
      }
    },
    // After cluster's own listeners: Node has closed the server (and unlinked its socket).
    closed(key) {
      if (!keys.has(key)) return;
      use(keys.get(key), me, -1);
      keys.delete(key);
    },
    // Node removes a worker's servers on 'disconnect' (not on 'exit': a worker that exits
    // connected keeps them until then), before the seam tells this watch.
    disconnected() {
      for (const entry of [...held.values()]) if (entry.users.has(me)) use(entry.bindPath, me, -Infinity);
    },
  };
}

// What net and dgram send: a unix path has port -1 and addressType -1; a port has a host (or
// none) and addressType 4, 6, 'udp4' or 'udp6'; fd is absent, or -1 from dgram. Node decides
// on loose comparisons (RoundRobinHandle listens on `address` as a path whenever `port >= 0`
// is false, whatever addressType says), so a query of any other shape is refused whole
// rather than guessed at.
const PORT_TYPES = new Set([4, 6, 'udp4', 'udp6']);
const MALFORMED = { refusal: 'a malformed listen request' };

/** {refusal}, {bindPath} (a unix path to bind through its held directory), or {} (allowed as is). */
function check(q, who, allowPrivileged) {
  const { fd, port, addressType, address } = q;
  if (fd !== undefined && fd !== null && fd !== -1) return Number.isInteger(fd) ? { refusal: `listen({fd: ${fd}}) names a descriptor of the daemon, not of the app` } : MALFORMED;
  if (port === -1 && addressType === -1) return unixPath(address, who);
  if (!Number.isInteger(port) || port < 0 || port > 65535 || !PORT_TYPES.has(addressType)) return MALFORMED;
  if (address !== undefined && address !== null && typeof address !== 'string') return MALFORMED;
  return { refusal: portRefusal(port, { allowPrivileged, firstFree: unprivilegedPortStart() }) };
}

function unixPath(address, who) {
  if (typeof address !== 'string' || address.length === 0) return { refusal: 'no socket path' };
  if (address[0] === '\0') return {}; // abstract: no file to create
  const abs = path.resolve(address); // as the primary resolves it (its own cwd)
  const known = bindPathOf.get(abs);
  if (known) {
    // Another worker on the same path: it joins the server, if its user may too.
    const again = openSocketDir(abs, who);
    if (again.refusal !== undefined) return again;
    fs.closeSync(again.fd);
    return { bindPath: known };
  }
  const opened = openSocketDir(abs, who);
  if (opened.refusal !== undefined) return opened;
  held.set(opened.bindPath, { fd: opened.fd, abs, bindPath: opened.bindPath, users: new Map(), given: false });
  bindPathOf.set(abs, opened.bindPath);
  return { bindPath: opened.bindPath };
}

/** Counts a worker in (+1) or out of a held directory; the last one out closes it. */
function use(bindPath, id, delta) {
  const entry = held.get(bindPath);
  if (!entry) return;
  const n = Math.max(0, (entry.users.get(id) ?? 0) + delta);
  if (n > 0) entry.users.set(id, n);
  else entry.users.delete(id);
  if (entry.users.size > 0) return;
  held.delete(bindPath);
  bindPathOf.delete(entry.abs);
  fs.closeSync(entry.fd);
}

/** The socket the primary just bound belongs to the app's user (once: the first server's). */
function giveSocket(bindPath, who) {
  const entry = held.get(bindPath);
  if (!entry || entry.given) return;
  entry.given = true;
  try {
    const st = fs.lstatSync(bindPath);
    if (st.isSocket() && st.uid === process.geteuid?.()) fs.lchownSync(bindPath, who.uid, who.gid);
  } catch {} // gone already: the app closed it
}
