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
// A refused query gets the reply Node sends for a failed bind ({errno, key, ack}): the
// app's listen() emits 'error' with EACCES, and its agent first prints why on its stderr.
// Apps run as the daemon's own user are not watched. Cost: one check per listen() call of
// such a worker, nothing per connection.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { TO_AGENT } from '../../ipc/agent-protocol.js';
import { tellAgent } from './agent-channel.js';
import { openSocketDir, portRefusal, unprivilegedPortStart } from './listen-permission.js';

const UV_EACCES = -os.constants.errno.EACCES;
const REFUSED = 'superd:refusedQuery'; // an act cluster has no handler for: it drops the query
// Servers one such worker may have the daemon hold (each a listening socket in the daemon,
// a directory descriptor too for a unix path): a worker forging queries must not exhaust
// the daemon's descriptors.
export const MAX_SERVERS_PER_WORKER = 256;

/** bind path -> {fd, abs, users: Map<worker id, count>, given: boolean}: directories held for live servers. */
const held = new Map();
/** socket path as the app gave it (absolute) -> its bind path while held */
const bindPathOf = new Map();

/**
 * Checks every listen query of a cluster worker run as another user (app.uid). Called
 * right after cluster.fork(), before the worker can say anything; prepended, so it sees
 * each query before cluster and the other listeners do.
 * @param {import('node:cluster').Worker} worker
 * @param {{uid: number|null, gid: number|null, allow_privileged_ports?: boolean}} app
 */
export function guardListens(worker, app) {
  if (app.uid == null || app.uid === process.geteuid()) return;
  const who = { uid: app.uid, gid: app.gid ?? process.getegid() };
  const proc = worker.process;
  const pending = new Map(); // query seq -> bind path (null: a port), until the reply
  const keys = new Map(); // key of a server it listens on -> bind path (null: a port)

  proc.prependListener('internalMessage', (msg) => {
    if (msg?.cmd !== 'NODE_CLUSTER' || msg.act !== 'queryServer') return;
    if (pending.size + keys.size >= MAX_SERVERS_PER_WORKER || pending.has(msg.seq)) {
      return refuseListen(proc, msg, `more than ${MAX_SERVERS_PER_WORKER} servers in one worker`);
    }
    const verdict = check(msg, who, app.allow_privileged_ports === true);
    if (verdict.refusal) return refuseListen(proc, msg, verdict.refusal);
    pending.set(msg.seq, verdict.bindPath ?? null);
    if (!verdict.bindPath) return;
    msg.address = verdict.bindPath;
    use(verdict.bindPath, worker.id, +1);
  });

  const send = proc.send;
  proc.send = function sendWatched(message, ...rest) {
    if (message?.cmd === 'NODE_CLUSTER' && message.ack !== undefined && pending.has(message.ack)) {
      const bindPath = pending.get(message.ack);
      pending.delete(message.ack);
      if (message.errno) use(bindPath, worker.id, -1);
      else {
        keys.set(message.key, bindPath);
        giveSocket(bindPath, who);
      }
    }
    return send.call(this, message, ...rest);
  };

  // After cluster's own listeners: Node has closed the server (and unlinked its socket).
  proc.on('internalMessage', (msg) => {
    if (msg?.cmd !== 'NODE_CLUSTER' || msg.act !== 'close' || !keys.has(msg.key)) return;
    use(keys.get(msg.key), worker.id, -1);
    keys.delete(msg.key);
  });
  // Node removes a worker's servers on 'disconnect' (not on 'exit': a worker that exits
  // connected keeps them until then), in a listener registered at fork, before this one.
  proc.once('disconnect', () => {
    for (const entry of [...held.values()]) if (entry.users.has(worker.id)) use(entry.bindPath, worker.id, -Infinity);
  });
}

// What net and dgram send: a unix path has port -1 and addressType -1; a port has a host (or
// none) and addressType 4, 6, 'udp4' or 'udp6'; fd is absent, or -1 from dgram. Node decides
// on loose comparisons (RoundRobinHandle listens on `address` as a path whenever `port >= 0`
// is false, whatever addressType says), so a query of any other shape is refused whole
// rather than guessed at.
const PORT_TYPES = new Set([4, 6, 'udp4', 'udp6']);
const MALFORMED = { refusal: 'a malformed listen request' };

/** {refusal}, {bindPath} (a unix path to bind through its held directory), or {} (allowed as is). */
function check(msg, who, allowPrivileged) {
  const { fd, port, addressType, address } = msg;
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
    if (again.refusal) return again;
    fs.closeSync(again.fd);
    return { bindPath: known };
  }
  const opened = openSocketDir(abs, who);
  if (opened.refusal) return opened;
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
    if (st.isSocket() && st.uid === process.geteuid()) fs.lchownSync(bindPath, who.uid, who.gid);
  } catch {} // gone already: the app closed it
}

/**
 * Answers a listen query as Node answers a failed bind: the app's listen() emits 'error'
 * with `errno` (EACCES by default), after its agent printed why on its stderr. The query's
 * act is renamed so cluster's own listener (which runs after) drops it.
 */
export function refuseListen(proc, msg, refusal, errno = UV_EACCES) {
  msg.act = REFUSED;
  const where = msg.addressType === -1 ? msg.address : `port ${msg.port}`;
  try {
    tellAgent(proc, TO_AGENT.LISTEN_REFUSED, { message: `superd: listen on ${where} refused: ${refusal}` });
    proc.send({ cmd: 'NODE_CLUSTER', errno, key: null, ack: msg.seq, data: null });
  } catch {} // the channel closed: nobody waits for the answer
}
