// Runs a foreground superd command (`super daemon ...`, `super run ...`) as a child the
// test owns: output captured, `waitFor(regex)` on it, `stop(signal)` -> exit {code, signal}.
// The sandbox's cleanup still kills whatever is left.
import { spawn } from 'node:child_process';
import { SUPER } from '../helpers/harness.js';

/**
 * @param {object} box  @param {object} t  @param {string[]} args
 * @param {{env?: object, cmd?: string, argv?: string[]}} [o]  argv: the whole command line after cmd (default: super and args)
 */
export function foreground(box, t, args, { env = {}, cmd = process.execPath, argv } = {}) {
  const child = spawn(cmd, argv ?? [SUPER, ...args], {
    cwd: box.dir,
    env: { ...process.env, SUPER_HOME: box.home, NO_COLOR: '1', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  let err = '';
  const waiters = new Set();
  const check = () => {
    for (const w of waiters) {
      const m = w.re.exec(w.stream === 'err' ? err : w.stream === 'out' ? out : out + err);
      if (m) {
        waiters.delete(w);
        clearTimeout(w.timer);
        w.resolve(m);
      }
    }
  };
  child.stdout.on('data', (d) => { out += d; check(); });
  child.stderr.on('data', (d) => { err += d; check(); });
  const exited = new Promise((resolve) => child.on('close', (code, signal) => resolve({ code, signal })));
  t.after(() => {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  });
  return {
    child,
    get stdout() { return out; },
    get stderr() { return err; },
    exited,
    /** Resolves with the match once `re` matches stdout+stderr (or one stream). */
    waitFor(re, { timeout = 30000, stream = 'both' } = {}) {
      return new Promise((resolve, reject) => {
        const w = { re, stream, resolve };
        w.timer = setTimeout(() => {
          waiters.delete(w);
          reject(new Error(`timed out waiting for ${re}; stdout: ${out.slice(-2000)}\nstderr: ${err.slice(-2000)}`));
        }, timeout);
        waiters.add(w);
        check();
      });
    },
    /** @param {NodeJS.Signals} [signal] */
    async stop(signal = 'SIGTERM') {
      child.kill(signal);
      return exited;
    },
  };
}

/** Resolves once the daemon of `box` answers (a foreground daemon sends no other signal). */
export async function waitForDaemon(box, timeout = 30000) {
  const deadline = Date.now() + timeout;
  for (;;) {
    try {
      const c = await box.client();
      c.close();
      return;
    } catch (err) {
      if (Date.now() > deadline) throw err;
      await new Promise((r) => setTimeout(r, 50));
    }
  }
}
