// Which way an app's new connections would reach its cluster workers, and why: the one
// decision `super describe` (through lib/master/process/connection-path.js, which keeps the
// path an app's live workers took) and `super check` (offline, for a file's apps) show.
//   round-robin  the daemon accepts each connection and hands it to a worker (Node's cluster
//                round-robin, with superd's handoff guard, sticky sessions and accept stamps);
//   os           one listening socket shared by the workers, each accepts (SCHED_NONE);
//   reuseport    a SO_REUSEPORT socket per worker, the kernel balances (lib/master/process/
//                cluster-internals/reuse-port.js).
// `scheduling: auto` (the default) takes reuseport for an app only where it keeps every
// promise round-robin keeps: this Node has it, the kernel migrates the accept queue of a
// closing listener to the others (net.ipv4.tcp_migrate_req = 1; otherwise each reload,
// scale-down or upgrade resets the connections queued on the retiring workers' sockets:
// docs/measurements.md), and the app needs nothing only the daemon's handoff gives (sticky:,
// overload max_queue_wait's accept stamps, wait_ready's (ready_on: ready) "no connection
// before ready()": lib/master/apps/slot.js). Else round-robin.
// Cost: one /proc read per decision. SUPER_TCP_MIGRATE_REQ in the environment names a file
// read instead of the sysctl (same format: a test shows `auto` a migrating kernel without
// changing the host's).
import fs from 'node:fs';

const MIGRATE_REQ = process.env.SUPER_TCP_MIGRATE_REQ || '/proc/sys/net/ipv4/tcp_migrate_req';

const [major, minor] = process.versions.node.split('.').map(Number);
/** Node 22.12+ / 23.1+ (libuv 1.49+): net.Server's listen knows reusePort. */
const nodeHasReusePort = major > 23 || (major === 23 && minor >= 1) || (major === 22 && minor >= 12);

/**
 * Whether this process's Node can bind a SO_REUSEPORT listening socket, and if not why.
 * @returns {{ok: boolean, why: string}}
 */
export function reusePortSupport() {
  if (!nodeHasReusePort) return { ok: false, why: `Node ${process.version} has no reusePort (22.12+, 23.1+ or 24 do)` };
  if (process.platform !== 'linux') return { ok: false, why: `SO_REUSEPORT balances connections on Linux only (this is ${process.platform})` };
  return { ok: true, why: `Node ${process.version}` };
}

/** net.ipv4.tcp_migrate_req: 1, 0, or null (a kernel before 5.14 has none). */
function migrateReq() {
  try {
    return Number(fs.readFileSync(MIGRATE_REQ, 'utf8').trim());
  } catch {
    return null;
  }
}

/**
 * @typedef {{path: 'round-robin'|'os'|'reuseport', why: string}} ConnectionPath
 */

/**
 * The path the app's connections would take if its workers were forked now, on this Node and kernel.
 * @param {{ready_on?: string, sticky?: {by: string}|null, overload?: {max_queue_wait: number|null}|null}} app
 * @param {string} scheduling  the daemon's: auto, round-robin, os or reuseport
 * @param {{support?: {ok: boolean, why: string}, migrate?: number|null}} [host]  what this Node and kernel have (a test gives its own)
 * @returns {ConnectionPath}
 */
export function choosePath(app, scheduling, { support = reusePortSupport(), migrate = migrateReq() } = {}) {
  if (scheduling === 'os') return { path: 'os', why: 'scheduling: os' };
  if (scheduling === 'round-robin') return { path: 'round-robin', why: 'scheduling: round-robin' };
  if (scheduling === 'reuseport') return { path: 'reuseport', why: `scheduling: reuseport; ${support.why}, tcp_migrate_req=${migrate ?? 'absent'}` };
  if (app.sticky) return { path: 'round-robin', why: `scheduling: auto; sticky: ${app.sticky.by} needs the daemon to choose the worker` };
  if (app.ready_on === 'ready') return { path: 'round-robin', why: 'scheduling: auto; wait_ready (ready_on: ready) needs the daemon to keep connections from a worker until it is ready' };
  if (app.overload?.max_queue_wait) return { path: 'round-robin', why: 'scheduling: auto; overload max_queue_wait needs the daemon\'s accept time' };
  if (!support.ok) return { path: 'round-robin', why: `scheduling: auto; ${support.why}` };
  if (migrate !== 1) {
    return { path: 'round-robin', why: `scheduling: auto; net.ipv4.tcp_migrate_req=${migrate ?? 'absent'}, so a closing reusePort listener would reset its queued connections (set it to 1 for reusePort)` };
  }
  return { path: 'reuseport', why: `scheduling: auto; ${support.why}, tcp_migrate_req=1` };
}
