// The user id of the process at the other end of a TCP connection to this machine, from
// the kernel's socket table (/proc/net/tcp and tcp6: the uid column of the peer's own
// socket, found by its port pair). Linux only: elsewhere, and for a peer on another
// machine, the answer is null (unknown).
import fs from 'node:fs/promises';

const hexPort = (p) => p.toString(16).toUpperCase().padStart(4, '0');

/**
 * @param {{remotePort?: number, localPort?: number}} socket  the server's side of the connection
 * @returns {Promise<number|null>}
 */
export async function peerUid(socket) {
  if (!socket.remotePort || !socket.localPort) return null;
  // the peer's socket: its local port is our remote port, its remote port our local port
  const local = `:${hexPort(socket.remotePort)}`;
  const remote = `:${hexPort(socket.localPort)}`;
  for (const table of ['/proc/net/tcp', '/proc/net/tcp6']) {
    let text;
    try {
      text = await fs.readFile(table, 'latin1');
    } catch {
      continue;
    }
    for (const line of text.split('\n')) {
      const f = line.trim().split(/\s+/);
      if (f.length > 7 && f[1].endsWith(local) && f[2].endsWith(remote)) return Number(f[7]);
    }
  }
  return null;
}
