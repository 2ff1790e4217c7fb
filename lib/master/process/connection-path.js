// Which way an app's new connections reach its cluster workers, and why (docs/ecosystem.md,
// `scheduling`; `super describe` prints it):
//   round-robin  the daemon accepts each connection and hands it to a worker (Node's cluster
//                round-robin, with superd's handoff guard, sticky sessions and accept stamps);
//   os           one listening socket shared by the workers, each accepts (SCHED_NONE);
//   reuseport    a SO_REUSEPORT socket per worker, the kernel balances (cluster-internals/
//                reuse-port.js).
// `scheduling: auto` (the default) takes reuseport for an app only where it keeps every
// promise round-robin keeps: the daemon's Node has it, the kernel migrates the accept queue
// of a closing listener to the others (net.ipv4.tcp_migrate_req = 1; otherwise each reload,
// scale-down or upgrade resets the connections queued on the retiring workers' sockets:
// docs/measurements.md), and the app needs nothing only the daemon's handoff gives (sticky:,
// overload max_queue_wait's accept stamps, wait_ready's (ready_on: ready) "no connection
// before ready()": lib/master/apps/slot.js).
// Else round-robin.
//
// An app's path is decided at the fork of its first live worker and kept while any of its
// workers lives: a reload's replacement must listen the way its old worker does (a socket
// without SO_REUSEPORT and one with it cannot share a port), so a reload that adds sticky:
// to an app on reuseport takes effect at its next `super restart` (describe says so).
// Cost: one /proc read per decision.
// SUPER_TCP_MIGRATE_REQ in the daemon's environment names a file read instead of the
// sysctl (same format: a test shows `auto` a migrating kernel without changing the host's).
import fs from 'node:fs';
import { reusePortSupport } from './cluster-internals/index.js';

const MIGRATE_REQ = process.env.SUPER_TCP_MIGRATE_REQ || '/proc/sys/net/ipv4/tcp_migrate_req';

/** The daemon's `scheduling` (daemon-policy.js sets it when the first start fixes it). */
let mode = 'auto';
/** @param {string} m */
export function setSchedulingMode(m) {
  mode = m;
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
 * The path the app's connections would take if its workers were forked now.
 * @param {{exec_mode?: string, ready_on?: string, sticky?: {by: string}|null, overload?: {max_queue_wait: number|null}|null}} app
 * @param {string} [m]  the daemon's scheduling
 * @param {{support?: {ok: boolean, why: string}, migrate?: number|null}} [host]  what this Node and kernel have (a test gives its own)
 * @returns {ConnectionPath}
 */
function resolvePath(app, m = mode, { support = reusePortSupport(), migrate = migrateReq() } = {}) {
  if (m === 'os') return { path: 'os', why: 'scheduling: os' };
  if (m === 'round-robin') return { path: 'round-robin', why: 'scheduling: round-robin' };
  if (m === 'reuseport') return { path: 'reuseport', why: `scheduling: reuseport; ${support.why}, tcp_migrate_req=${migrate ?? 'absent'}` };
  if (app.sticky) return { path: 'round-robin', why: `scheduling: auto; sticky: ${app.sticky.by} needs the daemon to choose the worker` };
  if (app.ready_on === 'ready') return { path: 'round-robin', why: 'scheduling: auto; wait_ready (ready_on: ready) needs the daemon to keep connections from a worker until it is ready' };
  if (app.overload?.max_queue_wait) return { path: 'round-robin', why: 'scheduling: auto; overload max_queue_wait needs the daemon\'s accept time' };
  if (!support.ok) return { path: 'round-robin', why: `scheduling: auto; ${support.why}` };
  if (migrate !== 1) {
    return { path: 'round-robin', why: `scheduling: auto; net.ipv4.tcp_migrate_req=${migrate ?? 'absent'}, so a closing reusePort listener would reset its queued connections (set it to 1 for reusePort)` };
  }
  return { path: 'reuseport', why: `scheduling: auto; ${support.why}, tcp_migrate_req=1` };
}

/** app name -> {path, why, live, inherited?}: the path its live workers take (inherited: a listen was served from an inherited socket) */
const taken = new Map();

/**
 * The path of a worker of `app` about to be forked: the one its live workers take, or a new decision.
 * @param {{name: string, exec_mode?: string, ready_on?: string, sticky?: {by: string}|null, overload?: {max_queue_wait: number|null}|null}} app
 * @returns {ConnectionPath}
 */
export function takePath(app) {
  let t = taken.get(app.name);
  if (!t) {
    t = { ...resolvePath(app), live: 0 };
    taken.set(app.name, t);
  }
  t.live += 1;
  return { path: t.path, why: t.why };
}

/**
 * A listen of a worker of `name` was served from a socket the daemon inherited (systemd's,
 * or the daemon `super upgrade` replaced held it): cluster serves it as the daemon's policy
 * says (round-robin unless `os`), whatever `reuseport` would, until the app's workers are
 * all gone (the socket closes with the last).
 * @param {string} name
 */
export function servedInherited(name) {
  const t = taken.get(name);
  // Only what describe says: the app's next workers still take t.path, so that a port of
  // theirs that is not inherited listens as their predecessors' does.
  if (t?.path === 'reuseport') t.inherited = true;
}

/** A worker of `name` that took a path exited. */
export function releasePath(name) {
  const t = taken.get(name);
  if (t && --t.live <= 0) taken.delete(name);
}

/**
 * What `super describe` says of an app's connections: the path its live workers take, or
 * the one a start would take now.
 * @param {{name: string, exec_mode?: string, ready_on?: string, sticky?: {by: string}|null, overload?: {max_queue_wait: number|null}|null}} app
 * @returns {ConnectionPath|null}  null for a fork-mode app
 */
export function describePath(app) {
  if (app.exec_mode !== 'cluster') return null;
  const t = taken.get(app.name);
  const now = resolvePath(app);
  if (!t) return now;
  if (t.inherited) {
    return { path: 'round-robin', why: `${t.why}; but its port is a listening socket the daemon inherited (systemd's, or the replaced daemon's at super upgrade), served through round-robin until the app restarts` };
  }
  if (now.path === t.path) return { path: t.path, why: t.why };
  // Its config or the host changed since (a reload added sticky:, the sysctl was set): the
  // running workers' path holds until none runs (a replacement must listen as they do).
  return { path: t.path, why: `${t.why}; kept while its workers run: a start now would take ${now.path} (${now.why}), so 'super restart' it (every worker stops first) to switch` };
}
