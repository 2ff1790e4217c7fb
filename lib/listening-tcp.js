// Every TCP socket in LISTEN state of this network namespace, from /proc/net/tcp{,6}: its
// inode (what /proc/<pid>/fd/N links to as `socket:[inode]`) and local address. Shared by
// the daemon (the sockets an upgrade hands over) and the CLI (who holds a port a start
// could not get). Linux only; read on demand, never on a request path.
import fs from 'node:fs';

const LISTEN = '0A';

/**
 * The inode of the socket that descriptor `fd` of process `pid` ('self': this one) is, or
 * null when it is no socket, or is gone, or not ours to see.
 * @param {number|string} pid  @param {number|string} fd
 */
export function socketInode(pid, fd) {
  try {
    const m = /^socket:\[(\d+)\]$/.exec(fs.readlinkSync(`/proc/${pid}/fd/${fd}`));
    return m ? Number(m[1]) : null;
  } catch {
    return null;
  }
}

/** inode -> {address, port} of every TCP socket in LISTEN state of this network namespace. */
export function listeningInodes() {
  const map = new Map();
  for (const file of ['/proc/net/tcp', '/proc/net/tcp6']) {
    let text;
    try {
      text = fs.readFileSync(file, 'utf8');
    } catch {
      continue; // no IPv6 in this kernel
    }
    for (const line of text.split('\n').slice(1)) {
      const f = line.trim().split(/\s+/);
      if (f.length < 10 || f[3] !== LISTEN) continue;
      const [hex, port] = f[1].split(':');
      map.set(Number(f[9]), { address: hex.length === 8 ? ipv4(hex) : ipv6(hex), port: parseInt(port, 16) });
    }
  }
  return map;
}

/**
 * The inodes of this network namespace's unix and netlink sockets: a process's own
 * channels (Node's IPC channel is a unix socket), never a network port.
 */
export function localSocketInodes() {
  const set = new Set();
  /** @type {[string, number][]} the file and its inode column */
  const tables = [['/proc/net/unix', 6], ['/proc/net/netlink', 9]];
  for (const [file, column] of tables) {
    let text;
    try {
      text = fs.readFileSync(file, 'utf8');
    } catch {
      continue;
    }
    for (const line of text.split('\n').slice(1)) {
      const f = line.trim().split(/\s+/);
      if (f.length > column) set.add(Number(f[column]));
    }
  }
  return set;
}

/** /proc/net/tcp writes each 32-bit word in host byte order (little-endian here). */
const words = (hex) => hex.match(/.{8}/g).map((w) => w.match(/../g).reverse().join(''));

function ipv4(hex) {
  return words(hex)[0].match(/../g).map((b) => parseInt(b, 16)).join('.');
}

function ipv6(hex) {
  const groups = words(hex).join('').match(/.{4}/g).map((g) => parseInt(g, 16).toString(16));
  return normalizeAddress(groups.join(':'));
}

/**
 * One spelling per address, so a worker's listen host and /proc's entry compare equal:
 * null, '' and the wildcards -> '0.0.0.0' or '::'; IPv6 expanded to eight lowercase groups
 * ('::' and '::1' kept short); IPv4-mapped IPv6 -> the IPv4 address.
 */
export function normalizeAddress(address) {
  if (!address) return null;
  if (!address.includes(':')) return address;
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address);
  if (mapped) return mapped[1];
  const [head, tail = null] = address.toLowerCase().split('::');
  const h = head ? head.split(':') : [];
  const t = tail ? tail.split(':') : [];
  const groups = tail === null ? h : [...h, ...Array(8 - h.length - t.length).fill('0'), ...t];
  const g = groups.map((x) => parseInt(x, 16).toString(16));
  if (g.slice(0, 5).every((x) => x === '0') && g[5] === 'ffff') {
    const v4 = parseInt(g[6], 16) * 65536 + parseInt(g[7], 16);
    return [24, 16, 8, 0].map((s) => (v4 >>> s) & 255).join('.');
  }
  const full = g.join(':');
  if (full === '0:0:0:0:0:0:0:0') return '::';
  if (full === '0:0:0:0:0:0:0:1') return '::1';
  return full;
}
