// The watch thread (worker_threads): chokidar and its scans of the watched trees run here,
// on their own event loop, so a tree of thousands of files never delays the daemon's (the
// daemon is the cluster primary: every connection passes through its loop). The daemon
// gets one message per burst of changes, never one per file.
//
//   daemon -> thread  {op: 'watch', app, paths, ignore, files, delay, options}   (re)start watching an app
//                     (options: the app's watch_options, lib/config/watch-options.js)
//                     {op: 'unwatch', app}
//   thread -> daemon  {app, ready: true, count, thread}                 initial scan done (thread: this
//                                                                        thread's threadId, never the daemon's 0)
//                     {app, changed: [path, ...], count}                 a burst ended (watch_delay quiet)
//                     {app, error}
//
// Bounds: symbolic links inside a watched tree are watched as links, never followed (a
// link to /usr took the daemon to 1.5 GB); a watched root that is itself a link (a
// `current` release link) is resolved first. An app watches at most maxPaths paths
// (SUPER_WATCH_MAX_PATHS, default 20000): past that, new paths are left out and the daemon
// is told once. The thread's heap is bounded too (watcher.js).
import fs from 'node:fs';
import path from 'node:path';
import { parentPort as port, threadId, workerData } from 'node:worker_threads';
import { watch } from 'chokidar';
import { makeIgnore } from './watch-ignore.js';

if (!port) throw new Error('watch-thread.js runs as the worker thread of watcher.js');
const parentPort = port;

const MAX_NAMED = 10; // changed files named per burst (count says how many in all)
const { maxPaths } = workerData;
const watchers = new Map(); // app -> {watcher, timer, changed: Set, count}

// One message at a time: a 'watch' right after an 'unwatch' of the same app must not race.
let queue = Promise.resolve();
parentPort.on('message', (m) => {
  queue = queue.then(() => (m.op === 'watch' ? start(m) : stop(m.app))).catch((err) => {
    parentPort.postMessage({ app: m.app, error: err.message });
  });
});

async function start({ app, paths, ignore, files, delay, options = {} }) {
  await stop(app);
  // Links resolved where they are named, as chokidar will name what is under them.
  const roots = await Promise.all(paths.map(realpath));
  const always = await Promise.all(files.map(async (f) => path.join(await realpath(path.dirname(f)), path.basename(f))));
  const isIgnored = makeIgnore({ roots, patterns: ignore, files: [...files, ...always] });
  const seen = new Set();
  const ignored = (p) => {
    if (isIgnored(p)) return true;
    if (seen.has(p)) return false;
    if (seen.size < maxPaths) {
      seen.add(p);
      return false;
    }
    if (seen.size === maxPaths) {
      seen.add(null); // said once
      parentPort.postMessage({ app, error: `more than ${maxPaths} paths to watch; the rest is not watched: narrow watch, add ignore_watch patterns, or raise SUPER_WATCH_MAX_PATHS` });
    }
    return true;
  };
  // The file's options first (polling, awaitWriteFinish, depth...), then what superd fixes.
  const watcher = watch(roots, { ...options, ignoreInitial: true, ignored, persistent: true, followSymlinks: false });
  /** @type {{watcher: typeof watcher, timer: NodeJS.Timeout|null, changed: Set<string>, count: number}} */
  const w = { watcher, timer: null, changed: new Set(), count: 0 };
  watchers.set(app, w);
  const onChange = (file) => {
    w.count++;
    if (w.changed.size < MAX_NAMED) w.changed.add(file);
    clearTimeout(w.timer ?? undefined);
    w.timer = setTimeout(() => {
      parentPort.postMessage({ app, changed: [...w.changed], count: w.count });
      w.changed.clear();
      w.count = 0;
    }, delay);
  };
  for (const ev of /** @type {const} */ (['add', 'change', 'unlink', 'addDir', 'unlinkDir'])) watcher.on(ev, onChange);
  watcher.on('error', (/** @type {NodeJS.ErrnoException} */ err) => parentPort.postMessage({ app, error: `${err.code ?? ''} ${err.message}`.trim() }));
  watcher.on('ready', () => {
    if (watchers.get(app) !== w) return;
    let count = 0;
    for (const names of Object.values(watcher.getWatched())) count += names.length;
    parentPort.postMessage({ app, ready: true, count, thread: threadId });
  });
}

const realpath = (p) => fs.promises.realpath(p).catch(() => p);

async function stop(app) {
  const w = watchers.get(app);
  if (!w) return;
  watchers.delete(app);
  clearTimeout(w.timer);
  await w.watcher.close();
}
