// What a daemon sends, checked as untrusted input where a client keeps it (the dashboard,
// which may watch daemons of other hosts and other versions): every list, string, map and
// nesting bounded, numbers finite, and the fields the client relies on of the right type.
// A message that fails is refused whole (BadDaemonMessage): the client drops that daemon's
// connection and says why, and nothing of it reaches the rest of the process; `super ls`
// says E_PROTOCOL instead of failing on it.
import { SuperError } from '../errors.js';
import { DEPLOY_STATES } from './protocol.js';

const LIMITS = Object.freeze({
  apps: 10_000, // apps of one answer
  workers: 1024, // workers of one app (the daemon's own bound on instances)
  allWorkers: 20_000, // workers of one answer
  history: 600, // points of one series
  list: 256, // any other list
  keys: 1024, // keys of one object (an env)
  string: 4096, // characters of one string
  logText: 65536, // characters of one log event
  depth: 6,
});

class BadDaemonMessage extends SuperError {
  constructor(message) {
    super('E_PROTOCOL', `the daemon sent a malformed message (${message}); is it superd of this version?`);
  }
}

const isObject = (v) => v !== null && typeof v === 'object' && !Array.isArray(v);

/**
 * A JSON value cut to the bounds: deeper levels dropped, long lists and strings cut, non-finite numbers null.
 * @param {any} v
 * @param {number} [depth]
 * @returns {any}
 */
export function bounded(v, depth = LIMITS.depth) {
  if (typeof v === 'string') return v.length > LIMITS.string ? v.slice(0, LIMITS.string) : v;
  if (typeof v === 'number') return Number.isFinite(v) ? v : null;
  if (typeof v === 'boolean' || v === null || v === undefined) return v;
  if (depth <= 0) return null;
  if (Array.isArray(v)) return v.slice(0, LIMITS.list).map((x) => bounded(x, depth - 1));
  if (!isObject(v)) return null;
  const out = {};
  let n = 0;
  for (const k in v) {
    if (!Object.hasOwn(v, k) || k === '__proto__') continue;
    if (++n > LIMITS.keys) break;
    out[k.slice(0, 256)] = bounded(v[k], depth - 1);
  }
  return out;
}

/** A series of numbers (a worker's history): a real list, its last LIMITS.history points. */
function numbers(v) {
  if (!Array.isArray(v)) return [];
  return v.slice(-LIMITS.history).map((x) => (typeof x === 'number' && Number.isFinite(x) ? x : null));
}

function worker(w, trim) {
  if (!isObject(w) || !Number.isSafeInteger(w.slot)) throw new BadDaemonMessage('a worker without a slot number');
  if (!trim) return w;
  const m = isObject(w.metrics) ? w.metrics : null;
  const out = bounded({ ...w, metrics: m && { ...m, history: undefined } });
  if (m && isObject(m.history)) out.metrics.history = { cpu: numbers(m.history.cpu), memory: numbers(m.history.memory), loop_p99_ms: numbers(m.history.loop_p99_ms) };
  return out;
}

function app(a, trim) {
  if (!isObject(a) || typeof a.name !== 'string' || !Array.isArray(a.workers)) throw new BadDaemonMessage('an app without a name or a list of workers');
  if (!trim) {
    a.workers.forEach((w) => worker(w, false));
    return a;
  }
  const out = bounded({ ...a, workers: undefined });
  out.name = a.name.slice(0, 256);
  out.workers = a.workers.slice(0, LIMITS.workers).map((w) => worker(w, true));
  return out;
}

/**
 * An `ls` answer or a "metrics" event: {apps: [...]} checked, and bounded unless `trim` is
 * false (`super ls`, which prints the answer once, only needs its shape checked).
 */
export function checkApps(data, { trim = true } = {}) {
  if (!isObject(data) || !Array.isArray(data.apps)) throw new BadDaemonMessage('no list of apps');
  if (!trim) {
    data.apps.forEach((a) => app(a, false));
    return data;
  }
  let workers = 0;
  const apps = [];
  for (const a of data.apps.slice(0, LIMITS.apps)) {
    const checked = app(a, true);
    workers += checked.workers.length;
    if (workers > LIMITS.allWorkers) throw new BadDaemonMessage(`more than ${LIMITS.allWorkers} workers`);
    apps.push(checked);
  }
  const deploy = checkDeploy(data.deploy);
  return deploy ? { apps, deploy } : { apps };
}

/**
 * What `super deploy` recorded on the daemon (`deploy` of an `ls` answer): its known fields
 * only, strings cut short, an unknown state shown as "?"; null when there is none.
 * @returns {{id: string, version: string, previous: string|null, state: string, step: string, reason: string|null, at: number|null}|null}
 */
function checkDeploy(v) {
  if (v === undefined || v === null) return null;
  if (!isObject(v) || typeof v.version !== 'string') throw new BadDaemonMessage('a deploy record without a release');
  const text = (x, max) => (typeof x === 'string' ? x.slice(0, max) : null);
  return {
    id: text(v.id, 128) ?? '?', version: v.version.slice(0, 128), previous: text(v.previous, 128),
    state: DEPLOY_STATES.includes(v.state) ? v.state : '?', step: text(v.step, 128) ?? '?', reason: text(v.reason, 1024),
    at: Number.isSafeInteger(v.at) ? v.at : null,
  };
}

const optionalInt = (v) => (Number.isSafeInteger(v) ? v : null);

/**
 * An event frame ({event, data}) checked and bounded; null for an event this client does
 * not know (ignored). Throws BadDaemonMessage for a known one of the wrong shape.
 */
export function checkEvent(msg) {
  if (!isObject(msg) || typeof msg.event !== 'string') throw new BadDaemonMessage('an event without a name');
  const { event, data } = msg;
  switch (event) {
    case 'metrics': return { event, data: checkApps(data) };
    case 'deploy': {
      const record = checkDeploy(data);
      if (!record) throw new BadDaemonMessage('a deploy event without a record');
      return { event, data: record };
    }
    case 'worker':
    case 'reload':
      if (!isObject(data) || typeof data.app !== 'string') throw new BadDaemonMessage(`a ${event} event without an app`);
      return { event, data: { ...bounded(data), slot: optionalInt(data.slot) ?? undefined } };
    case 'log': {
      if (!isObject(data)) throw new BadDaemonMessage('a log event without data');
      const given = typeof data.text === 'string' ? data.text : typeof data.line === 'string' ? data.line : ''; // line: older daemons
      const text = given.slice(0, LIMITS.logText);
      return {
        event,
        data: {
          app: typeof data.app === 'string' ? data.app.slice(0, 256) : '?', slot: optionalInt(data.slot), stream: data.stream === 'err' ? 'err' : 'out',
          text, skipped: Number.isSafeInteger(data.skipped) && data.skipped > 0 ? data.skipped : 0,
        },
      };
    }
    default: return null;
  }
}

/**
 * The answer to a `subscribe` that asked for `lines`: the last lines of each log file,
 * checked and bounded ([{app, slot, stream, lines}]); a malformed one throws BadDaemonMessage.
 */
export function checkTail(files) {
  if (files === undefined) return [];
  if (!Array.isArray(files)) throw new BadDaemonMessage('log tails that are not a list');
  return files.slice(0, LIMITS.list).map((f) => {
    if (!isObject(f) || typeof f.app !== 'string' || !Array.isArray(f.lines)) throw new BadDaemonMessage('a log tail without an app or lines');
    return {
      app: f.app.slice(0, 256), slot: optionalInt(f.slot), stream: f.stream === 'err' ? 'err' : 'out',
      lines: f.lines.slice(-LIMITS.list).map((l) => (typeof l === 'string' ? l.slice(0, LIMITS.string) : '')),
    };
  });
}
