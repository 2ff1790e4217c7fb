// The worker thread of load-off-thread.js: loads one ecosystem file and posts the result,
// or the coded error, back.
import { parentPort, workerData } from 'node:worker_threads';
import { loadEcosystem } from './index.js';

try {
  parentPort.postMessage({ eco: await loadEcosystem(workerData.file, workerData.options) });
} catch (err) {
  parentPort.postMessage({ error: { code: err.code, message: err.message, details: err.details, stack: err.stack } });
}
