// `scheduling: reuseport`: each cluster worker accepts from a SO_REUSEPORT listening socket
// of its slot's own, and the kernel spreads new connections over them (by a hash of each
// connection's addresses and ports). The daemon accepts nothing and hands nothing over: a
// connection goes from the kernel to a worker, as under `os`, but each worker has its own
// accept queue (no shared socket, no thundering herd).
//
// How a worker's listen(port) gets one: the worker's query comes to the daemon as every
// cluster listen does ('queryServer': worker-hooks.js), so the listen guards judge it first
// (listen-guard.js: the uid's ports; port-owners.js: one app per port) and refuse it with
// the daemon's reason. A query they let through is answered here, in cluster's place, as
// Node answers one under `os` (primary.js queryServer with a SharedHandle): {errno: 0, key,
// ack} and a handle, a socket the daemon bound with net._createServerHandle and the flag
// UV_TCP_REUSEPORT (what net.Server's listen({reusePort}) passes, Node 22.12+ and 23.1+).
// The worker's cluster child takes it as a shared handle and listens on it. The key is ours,
// unique per listen: the child sends it back in {act: 'close'}, which cluster's primary
// ignores (no such handle) and worker-hooks.js passes here.
//
// The daemon keeps each slot's socket open (it never listens on it itself) for as long as a
// worker of the app holds any socket of the port: a SO_REUSEPORT socket that closes resets
// every connection in its accept queue (unless the kernel migrates them:
// net.ipv4.tcp_migrate_req, 0 by default), and that queue holds the kernel's share of new
// connections for that socket. So:
//   - a reload's replacement for slot i gets slot i's socket, and accepts what its old
//     worker left queued there (they both accept from it until the old one drains);
//   - a socket whose slot has no worker holding it (scale-down, a crash, a worker that
//     closed its server) is lent to every live worker of the app (TO_AGENT.LEND_LISTEN:
//     lib/worker/lent-listen.cjs accepts from it for the app's server on that port), until a
//     worker of a slot takes it again (TO_AGENT.UNLEND_LISTEN);
//   - `super upgrade` hands the sockets to the successor daemon (upgrade/successor.js), whose
//     workers take them by address:port (adopt());
//   - once no worker of the app holds a socket of the port, the daemon closes them all (the
//     app stopped, or its last worker died: the port is free again).
//
// Not for: port 0 (each worker would get another port), unix paths, UDP, an fd, and an
// address:port served from a plain inherited socket (systemd's, or a round-robin socket of the
// daemon `super upgrade` replaced: it goes on serving through cluster, until the next fresh start).
//
// Why a daemon-bound socket and not the worker's own listen({reusePort}): the guards run
// before any bind, in the daemon, whatever the app's code does (a worker binding by itself
// is judged by nobody, and a second app could join the port's group and take its share).
import net from 'node:net';
import { takeQuery, queryAnswer } from './query-answer.js';
import { TO_AGENT, envelope } from '../../../ipc/agent-protocol.js';

// libuv's uv_tcp_flags (uv.h, libuv 1.49+): Node's net.js passes it for listen({reusePort}).
// shape-check.js checks it at boot against Node's own constant.
export const UV_TCP_REUSEPORT = 2;

/**
 * One port's sockets (address, port, addressType, flags), for one app.
 * @typedef {{handle: any, slot: number|null, holders: Set<import('node:child_process').ChildProcess>,
 *   lent: Map<import('node:child_process').ChildProcess, number>}} SlotSocket
 * @typedef {{app: string, address: string|null, port: number, sockets: SlotSocket[]}} PortGroup
 */
/** `${app}\0${address}:${port}:${addressType}:${flags}` -> the port's sockets */
const groups = new Map();
/** worker process -> Map<answer key, [group key, socket]>: what its {act: 'close', key} names */
const answered = new WeakMap();
/** @type {(address: string|null, port: number, take?: boolean) => number[]} the fds of the slot sockets a replaced daemon held (upgrade/ sets it) */
let inheritedOf = () => [];
let nextLend = 1;

/**
 * Answers listen query `msg` of `proc` (the worker of `slot` of `app`) with its slot's
 * SO_REUSEPORT socket, or returns false when this query is not one for it (the caller lets
 * cluster serve it).
 * @param {import('node:child_process').ChildProcess} proc
 * @param {{seq: number, act: string, address: unknown, port: unknown, addressType: unknown, fd: unknown, flags?: unknown}} msg
 * @param {{app: string, slot: number, workerId: number}} who
 * @returns {boolean}
 */
export function answerWithReusePort(proc, msg, { app, slot, workerId }) {
  if (msg.fd !== undefined || (msg.addressType !== 4 && msg.addressType !== 6)) return false;
  if (!Number.isInteger(msg.port) || Number(msg.port) <= 0) return false;
  if (msg.address != null && typeof msg.address !== 'string') return false;
  const flags = (Number.isInteger(msg.flags) ? Number(msg.flags) : 0) | UV_TCP_REUSEPORT;
  const address = /** @type {string|null} */ (msg.address ?? null);
  const port = Number(msg.port);
  const addressType = Number(msg.addressType);
  takeQuery(msg);
  const gkey = `${app}\0${address ?? ''}:${port}:${addressType}:${flags}`;
  const group = groups.get(gkey) ?? adopt(gkey, app, address, port, addressType, flags);
  let sock = group.sockets.find((s) => s.slot === slot) ?? group.sockets.find((s) => s.slot === null && s.holders.size === 0);
  if (!sock) {
    // @ts-expect-error net._createServerHandle is Node's internal (cluster's SharedHandle uses it); returns a handle or an errno
    const handle = net._createServerHandle(address, port, addressType, undefined, flags);
    if (typeof handle === 'number') {
      if (group.sockets.length === 0) groups.delete(gkey);
      send(proc, queryAnswer(msg.seq, handle));
      return true;
    }
    sock = { handle, slot, holders: new Set(), lent: new Map() };
    group.sockets.push(sock);
  }
  if (sock.slot !== slot) {
    sock.slot = slot;
    takeBack(sock);
  }
  const key = `superd-reuseport:${address ?? ''}:${port}:${addressType}:${workerId}:${msg.seq}`;
  if (!send(proc, queryAnswer(msg.seq, 0, key), sock.handle)) {
    if (sock.holders.size === 0) orphaned(gkey, sock);
    return true;
  }
  hold(proc, gkey, sock, key);
  // A worker of the port accepts from the sockets no slot holds, as the others do.
  for (const s of group.sockets) if (s.holders.size === 0 && s.slot === null) lend(group, s, proc);
  return true;
}

/** The worker closed the server of answer `key` ({act: 'close', key}): it no longer accepts from that socket. */
export function reusePortClosed(proc, key) {
  const entry = answered.get(proc)?.get(key);
  if (!entry) return;
  answered.get(proc)?.delete(key);
  release(proc, entry[0], entry[1]);
}

/** The descriptors of the sockets the daemon holds for reuseport apps (`super upgrade` hands them on). */
export function reusePortFds() {
  const fds = [];
  for (const g of groups.values()) for (const s of g.sockets) if (Number.isInteger(s.handle.fd) && s.handle.fd >= 0) fds.push(s.handle.fd);
  return fds;
}

/**
 * Whether a query of `app`'s worker is for a port whose reuseport sockets the daemon holds or
 * inherited from the daemon it replaced: served as reuseport whatever the app's path now (a
 * socket without SO_REUSEPORT could not join them), until the app's workers are all gone.
 * @param {string} app  @param {{address: unknown, port: unknown}} q
 */
export function reusePortServes(app, q) {
  if (!Number.isInteger(q.port) || (q.address != null && typeof q.address !== 'string')) return false;
  const address = /** @type {string|null} */ (q.address ?? null);
  for (const g of groups.values()) if (g.app === app && g.port === q.port && g.address === address) return true;
  return inheritedOf(address, Number(q.port)).length > 0;
}

/**
 * Serves the ports a replaced daemon's reuseport apps listened on from its sockets (upgrade/).
 * @param {(address: string|null, port: number, take?: boolean) => number[]} lookup  the inherited
 *   slot sockets of address:port (taken, with `take`)
 */
export function serveInheritedReusePort(lookup) {
  inheritedOf = lookup;
}

/** A new port group, with the sockets of that address:port a replaced daemon held, if any. */
function adopt(gkey, app, address, port, addressType, flags) {
  /** @type {PortGroup} */
  const group = { app, address, port, sockets: [] };
  for (const fd of inheritedOf(address, port, true)) {
    // @ts-expect-error as above
    const handle = net._createServerHandle(null, 0, addressType, fd, flags);
    if (typeof handle !== 'number') group.sockets.push({ handle, slot: null, holders: new Set(), lent: new Map() });
  }
  groups.set(gkey, group);
  return group;
}

function hold(proc, gkey, sock, key) {
  sock.holders.add(proc);
  let mine = answered.get(proc);
  if (!mine) {
    mine = new Map();
    answered.set(proc, mine);
    proc.once('exit', () => {
      for (const [k, [g, s]] of mine) {
        mine.delete(k);
        release(proc, g, s);
      }
      forgetBorrower(proc);
    });
  }
  mine.set(key, [gkey, sock]);
}

/** `proc` no longer holds `sock`; the last holder out leaves it to the app's other workers. */
function release(proc, gkey, sock) {
  const stillHeld = [...(answered.get(proc)?.values() ?? [])].some(([, s]) => s === sock);
  if (!stillHeld) sock.holders.delete(proc);
  if (sock.holders.size === 0) orphaned(gkey, sock);
}

/** No worker holds `sock`: lend it to every worker that holds a socket of its port, or close the port's sockets if none does. */
function orphaned(gkey, sock) {
  const group = groups.get(gkey);
  if (!group) return;
  sock.slot = null;
  const live = new Set(group.sockets.flatMap((s) => [...s.holders]));
  if (live.size === 0) {
    groups.delete(gkey);
    for (const s of group.sockets) {
      takeBack(s);
      s.handle.close();
    }
    return;
  }
  for (const proc of live) lend(group, sock, proc);
}

function lend(group, sock, proc) {
  if (sock.lent.has(proc)) return;
  const id = nextLend++;
  if (send(proc, envelope(TO_AGENT.LEND_LISTEN, { lend: id, port: group.port, address: group.address }), sock.handle)) sock.lent.set(proc, id);
}

/** A worker of `sock`'s slot holds it again: the others stop accepting from it. */
function takeBack(sock) {
  for (const [proc, id] of sock.lent) send(proc, envelope(TO_AGENT.UNLEND_LISTEN, { lend: id }));
  sock.lent.clear();
}

function forgetBorrower(proc) {
  for (const g of groups.values()) for (const s of g.sockets) s.lent.delete(proc);
}

/** Sends on the worker's channel; false when it has closed under us (the worker is going: its exit releases what it held). */
function send(proc, message, handle) {
  try {
    if (!proc.connected) return false;
    proc.send(message, handle);
    return true;
  } catch {
    return false;
  }
}
