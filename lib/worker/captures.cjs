'use strict';
// CPU profiles and heap snapshots of this worker, asked by the daemon (`super profile`,
// `super heap`, profile_on_stall): taken through node:inspector's in-process Session (no
// inspector port is opened) and v8.writeHeapSnapshot, and written by this process itself,
// so no profile or snapshot byte crosses the IPC channel or the daemon's memory.
//
// A file is written as <path>.partial (mode 0600) and moved to <path> once complete: a
// worker that dies mid-way leaves no half-written file at <path> (the daemon removes the
// .partial). A file that appeared at <path> meanwhile is kept (E_USAGE) unless the request
// says replace (--force). One diagnostic at a time per worker: a second one is refused (E_BUSY).
const fs = require('node:fs');
const v8 = require('node:v8');
const { FROM_AGENT } = require('../ipc/agent-protocol.cjs');
const { send } = require('./daemon-channel.cjs');
const { snapshotFits, availableToWorker } = require('./captures-memory.cjs');

let running = null; // 'profile' | 'heap' while one runs

const reply = (id, fields) => send(FROM_AGENT.DIAGNOSTIC_DONE, { id, ...fields });
const failure = (code, message) => ({ ok: false, error: { code, message } });
const partial = (file) => `${file}.partial`;

/**
 * Runs `task` unless another diagnostic runs, and answers the daemon with its outcome.
 * @param {string} kind  @param {number} id  @param {() => Promise<object>} task
 */
function exclusive(kind, id, task) {
  if (running) {
    reply(id, failure('E_BUSY', `a ${running === 'heap' ? 'heap snapshot' : 'CPU profile'} of this worker is being taken`));
    return;
  }
  running = kind;
  Promise.resolve()
    .then(task)
    .then(
      (fields) => reply(id, { ok: true, ...fields }),
      (err) => reply(id, failure(err.superCode ?? 'E_DIAGNOSTICS', err.message)),
    )
    .finally(() => {
      running = null;
    });
}

/**
 * Writes `text` to `file` through <file>.partial (0600), then moves it there: all or nothing.
 * Synchronous on purpose: the text is already in memory, and each step of an async write
 * waits for a turn of the event loop, which a CPU-bound worker under load makes last
 * seconds: open, each 512 KiB chunk, close and rename took past the daemon's deadline.
 */
function writeWhole(file, text, replace) {
  const tmp = partial(file);
  fs.writeFileSync(tmp, text, { mode: 0o600, flag: 'wx' });
  publish(tmp, file, replace);
  return Buffer.byteLength(text);
}

/**
 * Moves the complete `tmp` to `file`: a rename when it may replace what is there, else a
 * hard link, which fails on any existing name (a link planted there too).
 */
function publish(tmp, file, replace) {
  if (replace) {
    // --force replaces a regular file only: never a device (/dev/null), a directory or a link.
    const st = fs.lstatSync(file, { throwIfNoEntry: false });
    if (st && !st.isFile()) {
      fs.rmSync(tmp, { force: true });
      throw Object.assign(new Error(`${file} is not a regular file (a device, a directory, a FIFO or a link); --force replaces only a regular file: give another --out`), { superCode: 'E_USAGE' });
    }
    return fs.renameSync(tmp, file);
  }
  try {
    fs.linkSync(tmp, file);
  } catch (err) {
    if (NO_HARD_LINKS.has(err.code)) return fs.renameSync(tmp, file); // the daemon checked just before
    fs.rmSync(tmp, { force: true });
    if (err.code === 'EEXIST') throw Object.assign(new Error(`${file} appeared while it was being written, and is kept; --force replaces it`), { superCode: 'E_USAGE' });
    throw err;
  }
  return fs.rmSync(tmp);
}
// link() on a file system without hard links (vfat, some FUSE mounts)
const NO_HARD_LINKS = new Set(['EPERM', 'ENOTSUP', 'EOPNOTSUPP', 'ENOSYS']);

/** The daemon's PROFILE {id, duration, path, replace}: a sampling CPU profile of the next `duration` ms. */
function profile({ id, duration, path: file, replace = false }) {
  exclusive('profile', id, async () => {
    // Loaded on first use: an agent that is never asked costs the app nothing.
    const { Session } = require('node:inspector');
    const session = new Session();
    session.connect();
    const post = (method, params) => new Promise((resolve, reject) => {
      session.post(method, params, (err, result) => (err ? reject(err) : resolve(result)));
    });
    try {
      await post('Profiler.enable');
      await post('Profiler.start');
      // unref'd: a profile never keeps a worker that is done from exiting
      await new Promise((resolve) => setTimeout(resolve, duration).unref());
      const { profile: data } = await post('Profiler.stop');
      return { bytes: writeWhole(file, JSON.stringify(data), replace) };
    } finally {
      session.disconnect();
    }
  });
}

/**
 * The daemon's HEAP {id, path, replace}: a heap snapshot, streamed by V8 to the file. Refused when
 * the memory available to the worker (the host's, or its memory cgroup's room) cannot hold about the heap's size again (what V8 needs to
 * build the snapshot), rather than let the worker, or the host, run out of memory.
 */
function heap({ id, path: file, replace = false }) {
  exclusive('heap', id, async () => {
    const heapUsed = process.memoryUsage().heapUsed;
    const available = await availableToWorker();
    if (!snapshotFits(heapUsed, available)) {
      const mb = (n) => `${Math.round(n / 1048576)} MB`;
      throw Object.assign(new Error(`a heap snapshot of this worker needs about ${mb(heapUsed)} of free memory and ${mb(available)} is available (the host's MemAvailable, or its memory cgroup's room); free memory first`), { superCode: 'E_LOW_MEMORY' });
    }
    const tmp = partial(file);
    // Created 0600 first: V8 opens the path for writing and keeps the mode of an existing file.
    fs.writeFileSync(tmp, '', { mode: 0o600, flag: 'wx' });
    const made = fs.statSync(tmp);
    try {
      v8.writeHeapSnapshot(tmp);
    } catch (err) {
      // Node's writer returns on a failed write (ENOSPC) without closing its descriptor: the
      // deleted .partial would keep the disk full until the worker exits.
      closeDescriptorsOf(made);
      fs.rmSync(tmp, { force: true });
      throw err;
    }
    fs.chmodSync(tmp, 0o600);
    const bytes = fs.statSync(tmp).size;
    publish(tmp, file, replace);
    return { bytes, heapUsed };
  });
}

/** Closes every descriptor of this process open on the file `stat` describes (Linux: /proc/self/fd). */
function closeDescriptorsOf(stat) {
  let fds;
  try {
    fds = fs.readdirSync('/proc/self/fd');
  } catch {
    return; // no /proc: nothing to find the descriptor by
  }
  for (const name of fds) {
    const fd = Number(name);
    if (fd <= 2) continue;
    try {
      const s = fs.fstatSync(fd);
      if (s.ino === stat.ino && s.dev === stat.dev) fs.closeSync(fd);
    } catch {
      // the listing's own descriptor, already closed
    }
  }
}

module.exports = { profile, heap };
