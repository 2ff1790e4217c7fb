// `watch_options` (PM2's key: its Watcher.js passes it to chokidar.watch over its own
// defaults): the chokidar options superd's watch thread takes from the file, in ms, and
// the patterns of `ignored` (added to ignore_watch). What superd fixes itself is not
// taken: links inside a watched tree are never followed (a link to /usr took the daemon
// to 1.5 GB), changes before the first scan are not reloads, and paths stay absolute.
import { parseDuration, tooLongForTimer } from './units.js';

/** Polling each file faster than chokidar's own default only burns CPU. */
const MIN_POLL_MS = 100;
/** The least awaitWriteFinish.pollInterval: a size checked faster is no steadier. */
const MIN_WRITE_POLL_MS = 10;
/** Accepted with a warning: superd sets them (or they mean nothing here). */
const SET_BY_SUPERD = {
  persistent: 'superd sets it',
  ignoreInitial: 'superd sets it: changes before the first scan are not reloads',
  cwd: 'superd sets it: the watched paths are absolute',
  alwaysStat: 'superd sets it',
  useFsEvents: 'macOS only',
  disableGlobbing: 'superd matches ignore patterns itself (ignore_watch)',
};

/**
 * @typedef {{usePolling?: boolean, interval?: number, binaryInterval?: number, awaitWriteFinish?: boolean|{stabilityThreshold?: number, pollInterval?: number}, depth?: number, atomic?: boolean|number, ignorePermissionErrors?: boolean}} WatchOptions
 */

/**
 * @param {unknown} v  as written (its shape checked by the schema)
 * @param {(sub: string, message: string) => void} report  a problem at watch_options.<sub>
 * @param {(sub: string, message: string) => void} warn
 * @returns {{options: WatchOptions|null, ignored: string[]}}  options: null when none is set
 */
export function watchOptions(v, report, warn) {
  if (!v || typeof v !== 'object') return { options: null, ignored: [] };
  const o = /** @type {Record<string, any>} */ (v);
  /** @type {WatchOptions} */
  const options = {};
  const ms = (key, written, least) => {
    const out = parseDuration(written);
    const tooLong = out === undefined ? null : tooLongForTimer(written, out);
    if (out === undefined) report(key, `must be a duration like 100ms or 1s (got ${written})`);
    else if (out < least) report(key, `must be at least ${least}ms (got ${written})`);
    else if (tooLong) report(key, tooLong);
    return out;
  };
  if (o.usePolling !== undefined) options.usePolling = o.usePolling;
  if (o.interval !== undefined) options.interval = ms('interval', o.interval, MIN_POLL_MS);
  if (o.binaryInterval !== undefined) options.binaryInterval = ms('binaryInterval', o.binaryInterval, MIN_POLL_MS);
  if (o.awaitWriteFinish !== undefined) {
    const w = o.awaitWriteFinish;
    options.awaitWriteFinish = typeof w === 'boolean' ? w : {
      ...(w.stabilityThreshold !== undefined && { stabilityThreshold: ms('awaitWriteFinish', w.stabilityThreshold, 0) }),
      ...(w.pollInterval !== undefined && { pollInterval: ms('awaitWriteFinish', w.pollInterval, MIN_WRITE_POLL_MS) }),
    };
  }
  if (o.depth !== undefined) options.depth = o.depth;
  if (o.atomic !== undefined) options.atomic = typeof o.atomic === 'boolean' ? o.atomic : ms('atomic', o.atomic, 0);
  if (o.ignorePermissionErrors !== undefined) options.ignorePermissionErrors = o.ignorePermissionErrors;
  if (o.followSymlinks === true) warn('followSymlinks', 'ignored: superd never follows a link inside a watched tree (a link to / would be watched whole); a watched path that is itself a link is followed');
  for (const [key, why] of Object.entries(SET_BY_SUPERD)) if (o[key] !== undefined) warn(key, `ignored: ${why}`);
  const ignored = o.ignored === undefined ? [] : [].concat(o.ignored);
  return { options: Object.keys(options).length ? options : null, ignored };
}
