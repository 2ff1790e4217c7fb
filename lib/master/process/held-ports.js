// The TCP ports a worker, or a process it started, listens on by itself. A cluster
// worker's listening sockets are the daemon's (node:cluster binds them in the primary), so
// its replacement shares them; a fork-mode worker binds its own, and a replacement started
// beside it gets EADDRINUSE on each of them (unless both set SO_REUSEPORT, which /proc does
// not show). A reload reads them once per fork-mode slot, never on a request path; bounded
// by the descendants walk (stray-processes.js) and MAX_FDS per process.
import fs from 'node:fs';
import { listeningInodes, socketInode } from '../../listening-tcp.js';
import { descendants } from './stray-processes.js';

const MAX_FDS = 4096;

/**
 * @param {number} pid  a worker
 * @returns {{address: string, port: number}[]}  the TCP sockets in LISTEN state it or its descendants hold
 */
export function heldPorts(pid) {
  const listening = listeningInodes();
  const held = new Map();
  if (listening.size === 0) return [];
  for (const p of [pid, ...descendants(pid)]) {
    let fds;
    try {
      fds = fs.readdirSync(`/proc/${p}/fd`).slice(0, MAX_FDS);
    } catch {
      continue; // gone, or not ours to see
    }
    for (const fd of fds) {
      const socket = listening.get(socketInode(p, fd));
      if (socket) held.set(`${socket.address}:${socket.port}`, socket);
    }
  }
  return [...held.values()];
}
