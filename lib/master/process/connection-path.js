// The way an app's new connections reach its cluster workers (round-robin, os or reuseport),
// as lib/connection-path-choice.js decides it (`scheduling`, docs/ecosystem.md; `super check`
// shows the same decision for a file's apps), and the path each app's live workers took
// (`super describe` prints it).
//
// An app's path is decided at the fork of its first live worker and kept while any of its
// workers lives: a reload's replacement must listen the way its old worker does (a socket
// without SO_REUSEPORT and one with it cannot share a port), so a reload that adds sticky:
// to an app on reuseport takes effect at its next `super restart` (describe says so).
import { choosePath } from '../../connection-path-choice.js';

/** The daemon's `scheduling` (daemon-policy.js sets it when the first start fixes it). */
let mode = 'auto';
/** @param {string} m */
export function setSchedulingMode(m) {
  mode = m;
}

/** @typedef {import('../../connection-path-choice.js').ConnectionPath} ConnectionPath */

/**
 * The path the app's connections would take if its workers were forked now.
 * @param {{ready_on?: string, sticky?: {by: string}|null, overload?: {max_queue_wait: number|null}|null}} app
 * @returns {ConnectionPath}
 */
const resolvePath = (app) => choosePath(app, mode);

/** app name -> {path, why, live, inherited?}: the path its live workers take (inherited: the path a listen served from inherited sockets took instead) */
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
 * or the daemon `super upgrade` replaced held it), kind 'cluster': cluster serves it as the
 * daemon's policy says (round-robin unless `os`), whatever `reuseport` would; or, kind
 * 'reuseport', from the SO_REUSEPORT sockets of the port (a replaced daemon's reuseport
 * app), whatever the app's path now. Either holds until the app's workers are all gone.
 * @param {string} name
 * @param {'cluster'|'reuseport'} kind
 */
export function servedInherited(name, kind) {
  const t = taken.get(name);
  // Only what describe says: the app's next workers still take t.path, so that a port of
  // theirs that is not inherited listens as their predecessors' does.
  if (t && kind === 'cluster' && t.path === 'reuseport') t.inherited = 'round-robin';
  if (t && kind === 'reuseport' && t.path !== 'reuseport') t.inherited = 'reuseport';
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
  if (t.inherited === 'round-robin') {
    return { path: 'round-robin', why: `${t.why}; but its port is a listening socket the daemon inherited (systemd's, or the replaced daemon's at super upgrade), served through round-robin until the app restarts` };
  }
  if (t.inherited === 'reuseport') {
    return { path: 'reuseport', why: `${t.why}; but its port's SO_REUSEPORT sockets came from the daemon super upgrade replaced, served as reuseport until the app restarts` };
  }
  if (now.path === t.path) return { path: t.path, why: t.why };
  // Its config or the host changed since (a reload added sticky:, the sysctl was set): the
  // running workers' path holds until none runs (a replacement must listen as they do).
  return { path: t.path, why: `${t.why}; kept while its workers run: a start now would take ${now.path} (${now.why}), so 'super restart' it (every worker stops first) to switch` };
}
