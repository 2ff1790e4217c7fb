// The worker thread of load-off-thread.js: loads each ecosystem file it is sent and posts
// the result, or the coded error, back. One file at a time (the daemon's side queues them).
import { parentPort } from 'node:worker_threads';
import { loadEcosystem } from './index.js';

parentPort.on('message', async ({ file, options }) => {
  try {
    parentPort.postMessage({ eco: await loadEcosystem(file, options) });
  } catch (err) {
    parentPort.postMessage({ error: { code: err.code, message: err.message, details: err.details, stack: err.stack } });
  }
});
