// A long-running `super` command as a child the test owns (`super logs -f`, `super run`,
// `super daemon --foreground`, `super start` interrupted, ...): its output kept as text and
// as stdout lines, bounded waits on it that are checked as output arrives (no polling) and
// fail at once with the output when the command ends first, and a SIGKILL at the end of the
// test, even on failure.
import { spawn } from 'node:child_process';
import { SUPER } from './harness.js';

/**
 * @param {{home: string, dir?: string}} box  the sandbox: its SUPER_HOME, and its dir as cwd
 * @param {import('node:test').TestContext} t
 * @param {string[]} args  the command line after `super`
 * @param {{env?: object, cmd?: string, argv?: string[]}} [o]  argv: the whole command line
 *   after cmd (default: super and args)
 */
export function superProcess(box, t, args, { env = {}, cmd = process.execPath, argv } = {}) {
  const child = spawn(cmd, argv ?? [SUPER, ...args], {
    cwd: box.dir,
    env: { ...process.env, SUPER_HOME: box.home, NO_COLOR: '1', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  let err = '';
  let rest = '';
  /** @type {string[]} complete stdout lines, in order */
  const lines = [];
  const waiters = new Set();
  const check = () => {
    for (const w of waiters) {
      const v = w.check();
      if (v) w.settle(() => w.resolve(v));
    }
  };
  child.stdout.on('data', (d) => {
    out += d;
    const parts = (rest + d).split('\n');
    rest = parts.pop();
    lines.push(...parts);
    check();
  });
  child.stderr.on('data', (d) => {
    err += d;
    check();
  });
  const tail = () => `stdout: ${out.slice(-2000)}\nstderr: ${err.slice(-2000)}`;
  let closed = false; // after 'close', not 'exit': the output is all in
  /** @type {Promise<{code: number|null, signal: NodeJS.Signals|null}>} */
  const exited = new Promise((resolve) => child.on('close', (code, signal) => {
    closed = true;
    if (rest) lines.push(rest); // a last line without its newline
    check(); // the last output may be what a waiter wants
    for (const w of waiters) w.settle(() => w.reject(new Error(`super ${args.join(' ')} ended (${signal ?? code}) before ${w.what}; ${tail()}`)));
    resolve({ code, signal });
  }));
  t.after(() => {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  });

  /**
   * Resolves with check()'s first truthy value, checked now and on each output chunk.
   * @template T
   * @param {() => T} check
   * @param {{timeout?: number, what?: string}} [o]
   * @returns {Promise<T>}
   */
  function until(check, { timeout = 30000, what = 'the output' } = {}) {
    const now = check();
    if (now) return Promise.resolve(now);
    if (closed) return Promise.reject(new Error(`super ${args.join(' ')} ended before ${what}; ${tail()}`));
    return new Promise((resolve, reject) => {
      const w = {
        check, what, resolve, reject,
        /** @param {() => void} fn */
        settle: (fn) => {
          waiters.delete(w);
          clearTimeout(timer);
          fn();
        },
      };
      const timer = setTimeout(() => w.settle(() => reject(new Error(`timed out after ${timeout} ms waiting for ${what}; ${tail()}`))), timeout);
      waiters.add(w);
    });
  }

  return {
    child,
    lines,
    exited,
    get stdout() { return out; },
    get stderr() { return err; },
    until,
    /**
     * Resolves with the first stdout line (printed so far or later) that matches.
     * @param {RegExp | ((line: string) => boolean)} match
     * @param {{timeout?: number}} [o]
     */
    line(match, { timeout } = {}) {
      const test = typeof match === 'function' ? match : (l) => match.test(l);
      return until(() => lines.find(test), { timeout, what: `a line ${match}` });
    },
    /**
     * Resolves with the match once `re` matches stdout+stderr (or one stream).
     * @param {RegExp} re
     * @param {{timeout?: number, stream?: 'out' | 'err' | 'both'}} [o]
     */
    waitFor(re, { timeout, stream = 'both' } = {}) {
      return until(() => re.exec(stream === 'err' ? err : stream === 'out' ? out : out + err), { timeout, what: String(re) });
    },
    /** @param {NodeJS.Signals} [signal] */
    async stop(signal = 'SIGTERM') {
      child.kill(signal);
      return exited;
    },
  };
}
