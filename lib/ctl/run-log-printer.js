// The log printer of `super run`: a child process that follows every app's output through
// the control channel (the `logs` op with follow: the machinery of `super logs -f`) and
// prints it, `app#slot | line` (stderr lines to stderr) or JSON with --json. A child, so
// the per-line work never lands on the daemon's event loop (the cluster primary).
import path from 'node:path';
import { fork } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const CHILD = path.join(path.dirname(fileURLToPath(import.meta.url)), 'log-printer-process.js');

/**
 * Starts the printer; resolves once it follows (lines written from then on are printed).
 * @returns {Promise<{drain: () => Promise<void>}>}  drain: print what is left, then exit
 */
export function startLogPrinter({ home, json }) {
  const child = fork(CHILD, json ? ['--json'] : [], { stdio: ['ignore', 'inherit', 'inherit', 'ipc'], env: { ...process.env, SUPER_HOME: home } });
  const exited = new Promise((resolve) => child.once('exit', resolve));
  const printer = {
    async drain() {
      if (child.connected) child.send({ drain: true });
      await exited;
    },
  };
  return new Promise((resolve, reject) => {
    child.once('message', (/** @type {{following?: boolean, error?: string}} */ m) => (m?.following ? resolve(printer) : reject(new Error(m?.error ?? 'log printer failed'))));
    child.once('exit', (code) => reject(new Error(`log printer exited with code ${code}`)));
  });
}
