// The TCP ports a worker, or a process it started, listens on by itself. A cluster
// worker's listening sockets are the daemon's (node:cluster binds them in the primary), so
// its replacement shares them; a fork-mode worker binds its own, and a replacement started
// beside it gets EADDRINUSE on each of them (unless both set SO_REUSEPORT, which /proc does
// not show). A reload reads them once per fork-mode slot, never on a request path: the
// process tree's descriptors (bounded by the descendants walk of stray-processes.js and
// MAX_FDS per process), then, only if it holds a socket, the kernel's TCP tables, read off
// the daemon's event loop (they list every socket of the host: 0.4 s of kernel time for
// 20 000 on a busy host).
import fs from 'node:fs';
import { listeningInodesAsync, socketInode } from '../../listening-tcp.js';
import { descendants } from './stray-processes.js';

const MAX_FDS = 4096;

/** The inodes of the sockets this process (the daemon) has open. */
function ownSockets() {
  let fds = [];
  try {
    fds = fs.readdirSync('/proc/self/fd');
  } catch {
    // not Linux: nothing to leave out
  }
  return fds.map((fd) => socketInode('self', fd)).filter((inode) => inode !== null);
}

/** The inodes of the sockets `pid` and its descendants have open. */
function treeSockets(pid) {
  const sockets = new Set();
  for (const p of [pid, ...descendants(pid)]) {
    let fds;
    try {
      fds = fs.readdirSync(`/proc/${p}/fd`).slice(0, MAX_FDS);
    } catch {
      continue; // gone, or not ours to see
    }
    for (const fd of fds) {
      const inode = socketInode(p, fd);
      if (inode !== null) sockets.add(inode);
    }
  }
  return sockets;
}

/**
 * @param {number[]} pids  workers
 * @returns {Promise<{address: string, port: number}[][]>}  for each, the TCP sockets in LISTEN
 *   state it or its descendants hold (the daemon's descriptors and the kernel's tables read
 *   once for all of them)
 */
export async function heldPorts(pids) {
  const trees = pids.map(treeSockets);
  if (trees.every((sockets) => sockets.size === 0)) return trees.map(() => []);
  // A socket the daemon holds too is one it shares with the worker (shared-listen.js): a
  // replacement gets it as well, so it is no reason to stop the old worker first.
  const own = ownSockets();
  for (const sockets of trees) for (const inode of own) sockets.delete(inode);
  if (trees.every((sockets) => sockets.size === 0)) return trees.map(() => []);
  const listening = await listeningInodesAsync();
  return trees.map((sockets) => {
    const held = new Map();
    for (const inode of sockets) {
      const socket = listening.get(inode);
      if (socket) held.set(`${socket.address}:${socket.port}`, socket);
    }
    return [...held.values()];
  });
}
