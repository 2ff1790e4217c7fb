// The daemon reads ecosystem files (start, reload, watch, resurrect) in a worker thread:
// its own event loop is on the path of every connection of every app, and a file is
// untrusted text (YAML parsing, schema checks and normalization of a hostile file can
// cost seconds). The thread has a time and a heap bound; past either it is ended and the
// file refused.
//
// Starting a thread costs ~55 ms (a new isolate that loads the config modules), more than
// reading a usual file: one thread serves the loads one after another, and ends after
// IDLE_MS without one (or at once when a load broke it). A daemon that `super start <file>`
// launches starts it at boot (warm-reader.js), while it loads its own modules.
import { Worker } from 'node:worker_threads';
import { SuperError, CODES } from '../errors.js';
import { deepFreeze } from './deep-freeze.js';

const THREAD = new URL('./load-thread.js', import.meta.url);
/** A load that takes longer than this is ended (a JS/TS file has its own 10 s bound inside). */
const LOAD_TIMEOUT_MS = 20_000;
/** The heap a load may use. */
const LOAD_HEAP_MB = 256;
const IDLE_MS = 10_000;

/**
 * @typedef {{message: (m: {result: object, error?: undefined} | {result?: undefined, error: {code: string, message: string, details?: object, stack?: string}}) => void,
 *   error: (err: Error & {code?: string}) => void, exit: (code: number) => void}} PendingLoad
 * @typedef {{thread: Worker, pending: PendingLoad|null, idle: NodeJS.Timeout|undefined}} Reader
 */
/** @type {Reader|null} */
let reader = null; // the thread, the load it runs, its idle timer
let queue = Promise.resolve();

/**
 * loadEcosystem(file, options) in a worker thread.
 * @param {string} file
 * @param {import('./index.js').LoadOptions} [options]  plain data (it is copied to the thread)
 * @returns {Promise<import('./index.js').Ecosystem>}
 * @throws {SuperError} what loadEcosystem throws; E_CONFIG when the thread ran out of time or memory
 */
export function loadEcosystemOffThread(file, options = {}) {
  return queued(file, { op: 'file', file, options });
}

/**
 * loadSavedApp(saved, file, options) in the same thread: a saved config names a script,
 * whose directory's package.json and first bytes are read (lib/safe-read.js), never on the
 * daemon's loop.
 * @param {object} saved
 * @param {string} file  the dump (or what the config came from), named in problems
 * @param {import('./index.js').LoadOptions} [options]
 * @returns {Promise<object>} the app's normalized, frozen config
 */
export function loadSavedAppOffThread(saved, file, options = {}) {
  return queued(file, { op: 'saved', saved, file, options });
}

/**
 * loadEcosystemText(text, file, options) in the same thread (a file-less `super start app.js`).
 * @param {string} text
 * @param {string} file  a label for problems
 * @param {import('./index.js').LoadOptions & {baseDir?: string}} [options]
 * @returns {Promise<import('./index.js').Ecosystem>}
 */
export function loadEcosystemTextOffThread(text, file, options = {}) {
  return queued(file, { op: 'text', text, file, options });
}

function queued(file, request) {
  const load = queue.then(() => loadOnce(file, request));
  queue = load.catch(() => {});
  return load;
}

function loadOnce(file, request) {
  return new Promise((resolve, reject) => {
    const r = threadReader();
    const settle = (fn, value, broken = false) => {
      if (r.pending === null) return;
      r.pending = null;
      clearTimeout(timer);
      if (broken) retire(r);
      else {
        r.idle = setTimeout(() => retire(r), IDLE_MS);
        r.idle.unref();
      }
      fn(value);
    };
    const refuse = (why) => settle(reject, new SuperError('E_CONFIG', `1 problem in ${file}`, { problems: [`${file}: ${why}`] }), true);
    const timer = setTimeout(() => refuse(`reading it took more than ${LOAD_TIMEOUT_MS / 1000} s; it was abandoned: make the file smaller`), LOAD_TIMEOUT_MS);
    r.pending = {
      message(m) {
        if (m.error === undefined) return settle(resolve, deepFreeze(m.result));
        const { error } = m;
        const err = error.code in CODES ? new SuperError(error.code, error.message, error.details) : Object.assign(new Error(error.message), { stack: error.stack });
        settle(reject, err);
      },
      error(err) {
        if (err.code === 'ERR_WORKER_OUT_OF_MEMORY') refuse(`reading it needed more than ${LOAD_HEAP_MB} MB; it was abandoned: make the file smaller`);
        else settle(reject, err, true);
      },
      exit: (code) => settle(reject, new Error(`the thread reading ${file} exited with code ${code} before answering`), true),
    };
    r.thread.postMessage(request);
  });
}

/** Starts the reader thread now, for a load expected soon; it ends after IDLE_MS without one. */
export function warmReader() {
  if (reader?.pending) return; // busy: its load's end sets the idle timer
  const r = threadReader();
  r.idle = setTimeout(() => retire(r), IDLE_MS);
  r.idle.unref();
}

/** The running thread, or a new one. */
function threadReader() {
  if (reader) {
    clearTimeout(reader.idle);
    return reader;
  }
  const thread = new Worker(THREAD, { resourceLimits: { maxOldGenerationSizeMb: LOAD_HEAP_MB } });
  thread.unref(); // an idle reader never keeps a process alive
  /** @type {Reader} */
  const r = { thread, pending: null, idle: undefined };
  thread.on('message', (m) => r.pending?.message(m));
  thread.on('error', (err) => r.pending?.error(err));
  thread.on('exit', (code) => {
    if (reader === r) reader = null;
    r.pending?.exit(code);
  });
  reader = r;
  return r;
}

function retire(r) {
  if (reader === r) reader = null;
  clearTimeout(r.idle);
  r.thread.terminate();
}
