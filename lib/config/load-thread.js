// The worker thread of load-off-thread.js: loads each ecosystem file (or text, or saved app
// config) it is sent and posts the result, or the coded error, back. One at a time (the
// daemon's side queues them).
import { parentPort } from 'node:worker_threads';
import { loadEcosystem, loadEcosystemText, loadSavedApp } from './index.js';

const LOADS = {
  file: ({ file, options }) => loadEcosystem(file, options),
  text: ({ text, file, options }) => loadEcosystemText(text, file, options),
  saved: ({ saved, file, options }) => loadSavedApp(saved, file, options),
};

const port = parentPort;
if (!port) throw new Error('load-thread.js runs as the worker thread of load-off-thread.js');
port.on('message', async (request) => {
  try {
    port.postMessage({ result: await LOADS[request.op](request) });
  } catch (err) {
    port.postMessage({ error: { code: err.code, message: err.message, details: err.details, stack: err.stack } });
  }
});
