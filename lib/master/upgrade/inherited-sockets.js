// Listening sockets this daemon inherited as file descriptors: from the daemon it replaces
// (`super upgrade`: SUPERD_LISTEN_FDS=4,5,...) or from systemd socket activation
// (LISTEN_FDS=n, LISTEN_PID=our pid, LISTEN_FDNAMES: fds 3..3+n-1). Apps call listen(PORT),
// not listen({fd}), so the daemon maps each worker's listen query to an inherited socket
// of the same address:port:
//
// In node:cluster a worker's listen() becomes a 'queryServer' message to the primary
// (lib/internal/cluster/child.js _getServer), which the primary answers by creating a
// RoundRobinHandle (round-robin) or a SharedHandle (`scheduling: os`) keyed by
// address, port, addressType and fd (lib/internal/cluster/primary.js queryServer). Both
// handles use the query's `fd` when it is set (with no address and port): RoundRobinHandle
// listens with {fd}, SharedHandle opens the handle from the fd (net._createServerHandle)
// and sends it to the workers. So the seam to node:cluster (process/cluster-internals/)
// sets `fd` on the queries for inherited address:ports, after superd's own checks of the
// query, and the primary serves the very socket it inherited: no bind, no window.
// Node 20, 22 and 24 share this code path.
//
// A handle closes its fd once no worker uses it (an app stopped): the socket's inode is
// checked before each use, so a closed or reused descriptor number is forgotten, never
// handed out. A descriptor named by those variables that is a network socket but does not
// listen (bound only, connected, UDP) is closed at once: kept, it would hold a port an app
// then fails to bind (EADDRINUSE). Any other descriptor is left alone: with a bogus
// LISTEN_FDS count, those numbers may be this process's own (Node's, its IPC channel, the log).
import fs from 'node:fs';
import { serveInheritedSockets, serveInheritedReusePort } from '../process/index.js';
import { listeningSockets, normalizeAddress } from './listening-sockets.js';
import { socketInode, localSocketInodes } from '../../listening-tcp.js';

/** @type {{fd: number, ino: number, address: string, port: number, name: string|null, reusePort: boolean}[]} */
const inherited = [];
let hooked = false;

/**
 * Takes the sockets named by the environment (and removes those variables, so workers and
 * their children do not see them), and closes the descriptors named there that are
 * network sockets not listening. Returns what was adopted and the descriptors closed, for the log.
 * @param {NodeJS.ProcessEnv} [env]
 */
export function adoptInheritedSockets(env = process.env) {
  const { fds, names } = inheritedFds(env);
  // The replaced daemon's reuseport slot sockets (upgrade/successor.js): SO_REUSEPORT sockets
  // of one port, served by reuse-port.js, never one of them alone through cluster.
  const slotFds = new Set((env.SUPERD_REUSEPORT_FDS ?? '').split(',').map(Number).filter((fd) => fds.includes(fd)));
  for (const key of ['SUPERD_LISTEN_FDS', 'SUPERD_REUSEPORT_FDS', 'LISTEN_FDS', 'LISTEN_PID', 'LISTEN_FDNAMES']) delete env[key];
  const found = listeningSockets(fds).map((s) => ({ ...s, name: names[fds.indexOf(s.fd)] ?? null, reusePort: slotFds.has(s.fd) }));
  const closed = [];
  const strays = fds.filter((fd) => !found.some((s) => s.fd === fd));
  const local = strays.length ? localSocketInodes() : new Set();
  for (const fd of strays) {
    const ino = socketInode('self', fd);
    if (ino === null || local.has(ino)) continue;
    try {
      fs.closeSync(fd);
      closed.push(fd);
    } catch {} // closed meanwhile
  }
  inherited.push(...found);
  if (found.length && !hooked) {
    hooked = true;
    serveInheritedSockets(inheritedSocket);
    serveInheritedReusePort(inheritedReusePort);
  }
  return { adopted: found.map(({ fd, address, port, name }) => ({ fd, address, port, name })), closed };
}

function inheritedFds(env) {
  if (env.SUPERD_LISTEN_FDS) {
    const fds = env.SUPERD_LISTEN_FDS.split(',').map(Number).filter((fd) => Number.isInteger(fd) && fd > 2);
    return { fds, names: [] };
  }
  const n = Number(env.LISTEN_FDS);
  // LISTEN_PID guards against variables inherited by a process they were not meant for.
  if (!Number.isInteger(n) || n < 1 || n > 1024 || Number(env.LISTEN_PID) !== process.pid) return { fds: [], names: [] };
  return { fds: Array.from({ length: n }, (_, i) => 3 + i), names: (env.LISTEN_FDNAMES ?? '').split(':') };
}

/**
 * The inherited socket listening on address:port, if it is still open.
 * @param {string|null|undefined} address  as given to listen(); null/undefined: any address
 * @param {number} port
 * @returns {number|null} its file descriptor
 */
export function inheritedSocket(address, port) {
  return open(address, port, false)[0] ?? null;
}

/**
 * The replaced daemon's reuseport slot sockets listening on address:port, still open; taken
 * (no longer listed) when `take`: reuse-port.js then owns their descriptors.
 * @param {string|null|undefined} address  @param {number} port  @param {boolean} [take]
 * @returns {number[]} their file descriptors
 */
function inheritedReusePort(address, port, take = false) {
  const fds = open(address, port, true);
  if (take) for (const fd of fds) inherited.splice(inherited.findIndex((s) => s.fd === fd), 1);
  return fds;
}

/** The inherited sockets of address:port of one kind that are still open (a closed one is forgotten). */
function open(address, port, reusePort) {
  const wanted = normalizeAddress(address);
  const fds = [];
  for (const s of [...inherited]) {
    if (s.port !== port || s.reusePort !== reusePort || !(isWildcard(wanted) ? isWildcard(s.address) : s.address === wanted)) continue;
    let ino = null;
    try {
      ino = fs.fstatSync(s.fd).ino;
    } catch {}
    if (ino === s.ino) fds.push(s.fd);
    else inherited.splice(inherited.indexOf(s), 1); // its handle closed it
  }
  return fds;
}

/** No host, '::' or '0.0.0.0': every address (a socket systemd binds for a bare port is '::'). */
const isWildcard = (a) => a === null || a === '::' || a === '0.0.0.0';
