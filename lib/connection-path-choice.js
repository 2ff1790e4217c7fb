// Which way an app's new connections would reach its cluster workers, and why: the one
// decision `super describe` (through lib/master/process/connection-path.js, which keeps the
// path an app's live workers took) and `super check` (offline, for a file's apps) show.
//   round-robin  the daemon accepts each connection and hands it to a worker (Node's cluster
//                round-robin, with superd's handoff guard, sticky sessions and accept stamps);
//   os           one listening socket shared by the workers, each accepts (SCHED_NONE);
//   reuseport    a SO_REUSEPORT socket per worker, the kernel balances (lib/master/process/
//                cluster-internals/reuse-port.js).
// `scheduling: auto` (the default) takes reuseport for an app where this Node has it (22.12+,
// 23.1+, 24, on Linux) and the app needs nothing only the daemon's handoff gives (sticky:,
// overload max_queue_wait's accept stamps, wait_ready's (ready_on: ready) "no connection
// before ready()": lib/master/apps/slot.js). Else round-robin. A reload, scale-down, crash
// or upgrade loses no queued connection on either path, whatever the kernel's
// net.ipv4.tcp_migrate_req: the daemon keeps each slot's socket open (reuse-port.js).
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

/**
 * @typedef {{path: 'round-robin'|'os'|'reuseport', why: string}} ConnectionPath
 */

/**
 * The path the app's connections would take if its workers were forked now, on this Node and kernel.
 * @param {{ready_on?: string, sticky?: {by: string}|null, overload?: {max_queue_wait: number|null}|null}} app
 * @param {string} scheduling  the daemon's: auto, round-robin, os or reuseport
 * @param {{support?: {ok: boolean, why: string}}} [host]  what this Node has (a test gives its own)
 * @returns {ConnectionPath}
 */
export function choosePath(app, scheduling, { support = reusePortSupport() } = {}) {
  if (scheduling === 'os') return { path: 'os', why: 'scheduling: os' };
  if (scheduling === 'round-robin') return { path: 'round-robin', why: 'scheduling: round-robin' };
  if (scheduling === 'reuseport') return { path: 'reuseport', why: `scheduling: reuseport; ${support.why}` };
  if (app.sticky) return { path: 'round-robin', why: `scheduling: auto; sticky: ${app.sticky.by} needs the daemon to choose the worker` };
  if (app.ready_on === 'ready') return { path: 'round-robin', why: 'scheduling: auto; wait_ready (ready_on: ready) needs the daemon to keep connections from a worker until it is ready' };
  if (app.overload?.max_queue_wait) return { path: 'round-robin', why: 'scheduling: auto; overload max_queue_wait needs the daemon\'s accept time' };
  if (!support.ok) return { path: 'round-robin', why: `scheduling: auto; ${support.why}` };
  return { path: 'reuseport', why: `scheduling: auto; ${support.why}` };
}
