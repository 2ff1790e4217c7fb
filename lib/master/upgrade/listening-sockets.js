// Which of this process's file descriptors are listening TCP sockets, and on what
// address:port. Linux only (superd's package says so): a socket descriptor links to
// `socket:[inode]` in /proc/self/fd, and /proc/net/tcp{,6} lists each LISTEN socket with
// its inode and local address. Read once per upgrade or boot, never on a request path.
import fs from 'node:fs';
import { listeningInodes, socketInode } from '../../listening-tcp.js';

export { normalizeAddress } from '../../listening-tcp.js';

/**
 * @param {number[]} [fds]  the descriptors to look at (default: every one of this process)
 * @returns {{fd: number, ino: number, address: string, port: number}[]}  address: '0.0.0.0',
 *   '::' for wildcards; IPv4 dotted, IPv6 in full lowercase groups otherwise
 */
export function listeningSockets(fds = ownFds()) {
  // No descriptor to look at (every boot without inherited sockets): /proc/net/tcp lists every
  // socket of the host, thousands on a busy one, not worth reading for nothing.
  if (fds.length === 0) return [];
  const byInode = listeningInodes();
  const out = [];
  for (const fd of fds) {
    const ino = socketInode('self', fd); // null: closed meanwhile, or not a socket
    const sock = ino !== null && byInode.get(ino);
    if (sock) out.push({ fd, ino, ...sock });
  }
  return out;
}

function ownFds() {
  return fs.readdirSync('/proc/self/fd').map(Number).filter((fd) => fd > 2);
}
