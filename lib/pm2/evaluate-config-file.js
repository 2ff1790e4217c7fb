// A PM2 ecosystem.config.js is user code: it is evaluated in a short-lived child Node
// process (cwd: the file's directory, the caller's environment), bounded in time and in the
// size of what it returns, and only the resulting plain data comes back.
import { spawn } from 'node:child_process';
import path from 'node:path';
import { SuperError } from '../errors.js';

export const EVALUATE_TIMEOUT_MS = 5000;
const MAX_RESULT_CHARS = 4 * 1024 * 1024;
const MAX_STDERR_CHARS = 4096;

// Runs in the child: import the file (CommonJS or ESM alike), take its default export or
// module.exports, call it if it is a function (PM2 allows that), send back plain JSON.
const CHILD = `
const { pathToFileURL } = await import('node:url');
const done = (msg) => process.send(msg, () => process.exit(0));
try {
  const mod = await import(pathToFileURL(process.argv[1]).href);
  let conf = mod.default !== undefined ? mod.default : { ...mod };
  if (typeof conf === 'function') conf = await conf();
  done({ ok: true, json: JSON.stringify(conf ?? null) });
} catch (err) {
  done({ ok: false, error: String(err && err.stack || err) });
}`;

/** @returns {Promise<unknown>} the configuration object the file exports */
export function evaluateConfigFile(file) {
  return new Promise((resolve, reject) => {
    const fail = (why) => reject(new SuperError('E_IMPORT', `${file}: ${why}`));
    const child = spawn(process.execPath, ['--input-type=module', '-e', CHILD, file], {
      cwd: path.dirname(file),
      stdio: ['ignore', 'ignore', 'pipe', 'ipc'],
      timeout: EVALUATE_TIMEOUT_MS,
      killSignal: 'SIGKILL',
    });
    let stderr = '';
    let reply = null;
    child.stderr.on('data', (d) => (stderr = (stderr + d).slice(-MAX_STDERR_CHARS)));
    child.on('message', (msg) => (reply ??= msg));
    child.on('error', (err) => fail(`cannot run node to evaluate it (${err.code ?? err.message})`));
    child.on('close', (code, signal) => {
      if (signal === 'SIGKILL' && !reply) return fail(`did not finish within ${EVALUATE_TIMEOUT_MS / 1000} s; does it wait for something?`);
      if (!reply) return fail(`exited (${signal ?? `code ${code}`}) without a configuration${stderr ? `: ${lastLine(stderr)}` : ''}`);
      if (!reply.ok) return fail(`threw: ${firstLines(reply.error)}`);
      if (typeof reply.json !== 'string' || reply.json.length > MAX_RESULT_CHARS) return fail('exports a configuration too large to be an ecosystem');
      resolve(JSON.parse(reply.json));
    });
  });
}

const lastLine = (text) => text.trim().split('\n').pop();
// The message and the frame in the user's file: enough to find the throw, on one line.
const firstLines = (stack) => stack.split('\n').slice(0, 2).map((l) => l.trim()).join(' ');
