// The listening sockets of fork-mode Node workers, held by the daemon: a worker's listen()
// on a TCP port asks for one (lib/worker/shared-listen.cjs), and the daemon binds it once
// per address:port and sends it to every worker of the app that asks, as node:cluster's
// primary does with a SharedHandle under `scheduling: os` (lib/internal/cluster/
// shared_handle.js: net._createServerHandle, then the handle sent over IPC). So a reload's
// replacement listens on the socket its old worker serves and both accept from it until the
// old one drains: a fork-mode reload refuses no connection. The daemon never listens or
// accepts on it itself; it closes its copy once no worker of the app has the socket open
// (all closed it, or exited), so a stopped app leaves no port bound.
//
// One app per address:port (as port-owners.js for cluster workers): another app's worker
// asking for it gets EADDRINUSE. Only for workers run as the daemon's own user (the daemon
// sets SUPER_SHARED_LISTEN for no other): binding for another user is listen-guard.js's
// business. Cost: nothing per connection; one Map lookup per listen().
import net from 'node:net';
import os from 'node:os';
import { TO_AGENT, envelope } from '../../../ipc/agent-protocol.js';
import { inheritedSocket } from './fork.js';

const UV_EADDRINUSE = -os.constants.errno.EADDRINUSE;

/** key -> {handle, app, users: Map<WorkerProcess, Set<request id>>} */
const sockets = new Map();
/** WorkerProcess -> Map<request id, key>: what each of its LISTEN_CLOSED names */
const requests = new WeakMap();

/**
 * A worker's LISTEN {id, address, port, addressType, flags} (fields checked by its guard):
 * answers LISTEN_HANDLE with the socket, or with the errno of a failed bind.
 * @param {import('../worker-process.js').WorkerProcess} proc
 */
export function shareListen(proc, { id, address, port, addressType, flags }) {
  const key = `${address ?? ''}:${port}:${addressType}:${flags}`;
  let s = sockets.get(key);
  if (s && s.app !== proc.appName) return answer(proc, id, UV_EADDRINUSE);
  if (!s) {
    // The socket the daemon this one replaced held (`super upgrade`), or systemd's: served, not bound anew.
    const fd = inheritedSocket(address, port);
    // @ts-expect-error net._createServerHandle is Node's internal (cluster's SharedHandle uses it); returns a handle or an errno
    const handle = fd === null ? net._createServerHandle(address, port, addressType, undefined, flags) : net._createServerHandle(null, 0, addressType, fd, flags);
    if (typeof handle === 'number') return answer(proc, id, handle);
    s = { handle, app: proc.appName, users: new Map() };
    sockets.set(key, s);
  }
  if (!s.users.has(proc)) {
    s.users.set(proc, new Set());
    proc.once('exit', () => leave(key, proc, null));
  }
  s.users.get(proc).add(id);
  if (!requests.has(proc)) requests.set(proc, new Map());
  requests.get(proc).set(id, key);
  answer(proc, id, 0, s.handle);
  for (const w of waiters) w.check();
}

/** Retirements waiting for a replacement to hold its old worker's sockets (takenOver). */
const waiters = new Set();

const holds = (proc, key) => (sockets.get(key)?.users.get(proc)?.size ?? 0) > 0;

/**
 * Resolves once `successor` holds every socket `old` holds (it listens on them), or after
 * `ms`, or when it exits: a replacement counts as ready at spawn in fork mode, maybe before
 * its listen(), and its old worker's drain must not close the socket's last copy meanwhile
 * (connections would be refused until the replacement binds it anew).
 * @param {object} successor  @param {object} old  WorkerProcesses  @param {number} ms
 * @returns {Promise<void>}
 */
export function takenOver(successor, old, ms) {
  const keys = [...new Set(requests.get(old)?.values() ?? [])].filter((k) => holds(old, k));
  if (keys.length === 0) return Promise.resolve();
  return new Promise((resolve) => {
    const done = () => {
      clearTimeout(timer);
      waiters.delete(w);
      successor.off('exit', done);
      resolve();
    };
    const w = { check: () => keys.every((k) => holds(successor, k)) && done() };
    const timer = setTimeout(done, ms);
    waiters.add(w);
    successor.once('exit', done);
    w.check();
  });
}

/** A worker's LISTEN_CLOSED {id}: its server closed its copy of that socket. */
export function sharedListenClosed(proc, { id }) {
  const key = requests.get(proc)?.get(id);
  if (key !== undefined) leave(key, proc, id);
}

/** Whether a worker of `app` gets its TCP ports from the daemon: fork mode, with the agent, as the daemon's user. */
export const sharesListen = (app) => app.exec_mode === 'fork' && app.interpreter === 'node' && app.uid == null && app.gid == null;

/** `proc` no longer uses the socket of `key` (request `id`; null: none, it exited); the last user out closes it. */
function leave(key, proc, id) {
  const s = sockets.get(key);
  const ids = s?.users.get(proc);
  if (!ids) return;
  if (id === null) ids.clear();
  else ids.delete(id);
  if (ids.size === 0) s.users.delete(proc);
  if (s.users.size === 0) {
    sockets.delete(key);
    s.handle.close();
  }
}

function answer(proc, id, errno, handle) {
  try {
    proc.child.send(envelope(TO_AGENT.LISTEN_HANDLE, errno ? { id, errno } : { id }), handle);
  } catch {
    // the channel closed under us: the worker is going, its exit leaves the socket
  }
}
