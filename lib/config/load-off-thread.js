// The daemon reads ecosystem files (start, reload, watch, resurrect) in a worker thread:
// its own event loop is on the path of every connection of every app, and a file is
// untrusted text (YAML parsing, schema checks and normalization of a hostile file can
// cost seconds). The thread has a time and a heap bound; past either it is ended and the
// file refused.
import { Worker } from 'node:worker_threads';
import { SuperError, CODES } from '../errors.js';
import { deepFreeze } from './deep-freeze.js';

const THREAD = new URL('./load-thread.js', import.meta.url);
/** A load that takes longer than this is ended (a JS/TS file has its own 10 s bound inside). */
const LOAD_TIMEOUT_MS = 20_000;
/** The heap a load may use. */
const LOAD_HEAP_MB = 256;

/**
 * loadEcosystem(file, options) in a worker thread.
 * @param {string} file
 * @param {import('./index.js').LoadOptions} [options]  plain data (it is copied to the thread)
 * @returns {Promise<import('./index.js').Ecosystem>}
 * @throws {SuperError} what loadEcosystem throws; E_CONFIG when the thread ran out of time or memory
 */
export function loadEcosystemOffThread(file, options = {}) {
  return new Promise((resolve, reject) => {
    const thread = new Worker(THREAD, { workerData: { file, options }, resourceLimits: { maxOldGenerationSizeMb: LOAD_HEAP_MB } });
    let settled = false;
    const settle = (fn, value) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      thread.terminate();
      fn(value);
    };
    const refuse = (why) => settle(reject, new SuperError('E_CONFIG', `1 problem in ${file}`, { problems: [`${file}: ${why}`] }));
    const timer = setTimeout(() => refuse(`reading it took more than ${LOAD_TIMEOUT_MS / 1000} s; it was abandoned: make the file smaller`), LOAD_TIMEOUT_MS);
    thread.on('message', ({ eco, error }) => {
      if (eco) return settle(resolve, deepFreeze(eco));
      const err = error.code in CODES ? new SuperError(error.code, error.message, error.details) : Object.assign(new Error(error.message), { stack: error.stack });
      settle(reject, err);
    });
    thread.on('error', (err) => {
      if (err.code === 'ERR_WORKER_OUT_OF_MEMORY') refuse(`reading it needed more than ${LOAD_HEAP_MB} MB; it was abandoned: make the file smaller`);
      else settle(reject, err);
    });
    thread.on('exit', (code) => settle(reject, new Error(`the thread reading ${file} exited with code ${code} before answering`)));
  });
}
