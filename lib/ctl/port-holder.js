// Who holds a TCP port, found the way `ss -ltnp` finds it: the listening socket's inode in
// /proc/net/tcp and tcp6, then the process with a descriptor on that socket in
// /proc/<pid>/fd. Run by the CLI (never the daemon) when a start fails with EADDRINUSE.
// Bounded: at most MAX_PROCS processes and MAX_MS of work. As a user other than root, only
// that user's own processes can be seen, as with ss.
import fs from 'node:fs';
import { listeningInodes, socketInode } from '../listening-tcp.js';

const MAX_PROCS = 20000;
const MAX_MS = 1000;

/** `listen EADDRINUSE: address already in use 127.0.0.1:3000` (or :::3000) -> 3000; null if none. */
export function busyPort(text) {
  const m = /EADDRINUSE\b.*?(?:address already in use\s+)?(?:\S*?):(\d{1,5})\b/.exec(text ?? '');
  const port = m ? Number(m[1]) : NaN;
  return port > 0 && port < 65536 ? port : null;
}

/**
 * @param {number} port
 * @returns {{pid: number, command: string}|null}  the first process found holding a listening socket on it
 */
export function portHolder(port) {
  const inodes = listeningOn(port);
  if (!inodes.size) return null;
  const deadline = Date.now() + MAX_MS;
  let pids;
  try {
    pids = fs.readdirSync('/proc').filter((n) => /^\d+$/.test(n)).slice(0, MAX_PROCS);
  } catch {
    return null;
  }
  for (const pid of pids) {
    if (Date.now() > deadline) return null;
    let fds;
    try {
      fds = fs.readdirSync(`/proc/${pid}/fd`);
    } catch {
      continue; // gone, or not ours to see
    }
    for (const fd of fds) {
      if (inodes.has(socketInode(pid, fd))) return { pid: Number(pid), command: commandOf(pid) };
    }
  }
  return null;
}

/** Inodes of the sockets listening on `port` (IPv4 and IPv6). */
function listeningOn(port) {
  return new Set([...listeningInodes()].filter(([, s]) => s.port === port).map(([inode]) => inode));
}

function commandOf(pid) {
  try {
    const words = fs.readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').filter(Boolean);
    const text = words.join(' ').replace(/[\x00-\x1f\x7f]/g, '?');
    return text.length > 100 ? `${text.slice(0, 97)}...` : text;
  } catch {
    return '?';
  }
}
