// Starts the daemon detached when none answers, and waits until it is ready.
// Two `super start` at once may both launch one: the daemon's pid file lets exactly one
// win; the other exits with EXIT_ALREADY_RUNNING and its CLI connects to the winner.
import fs from 'node:fs';
import path from 'node:path';
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { connect } from '../ipc/client.js';
import { SuperError } from '../errors.js';
import { daemonErrPath, prepareHome, describeIo } from '../home.js';
import { LAUNCH, GATE_ENV, EXIT_ALREADY_RUNNING, goMessage } from '../ipc/launch-protocol.js';

const daemonPath = path.join(path.dirname(fileURLToPath(import.meta.url)), '..', 'master', 'core', 'daemon.js');
const warmReaderUrl = new URL('../config/warm-reader.js', import.meta.url).href;
const ERR_FLAGS = fs.constants.O_WRONLY | fs.constants.O_CREAT | fs.constants.O_TRUNC | fs.constants.O_NOFOLLOW;

/**
 * Connects to the daemon of `home`, starting one detached when none answers. Waits for the
 * daemon's own word: "ready", or the error it failed with (sent over IPC too, since a full
 * disk can leave daemon.err empty), or its exit. `timeout` only bounds a daemon that says
 * nothing at all.
 * @param {string} home
 * @param {object} [opts]
 * @param {number} [opts.timeout=120000]
 * @param {boolean} [opts.warmConfigReader]  an ecosystem file is sent next: a new daemon
 *   starts the thread that reads it at once (lib/config/warm-reader.js), a running one is
 *   asked to (`warm-reader`)
 * @param {Promise<unknown>} [opts.checked]  the caller's check of what it sends next (`super
 *   start` checks the file): no daemon is started when it rejects, and its error is thrown.
 *   When SUPER_HOME exists already, the daemon is launched meanwhile and loads its modules,
 *   held before it touches SUPER_HOME until the check passes (lib/master/core/launch-gate.js).
 */
export async function ensureDaemon(home, { timeout = 120000, warmConfigReader = false, checked } = {}) {
  checked?.catch(() => {}); // awaited below; never an unhandled rejection meanwhile
  let running = null;
  try {
    running = await connect(home);
  } catch (err) {
    if (err.code !== 'E_NO_DAEMON') {
      await checked; // a refused file says so first, as when the check ran before the connect
      throw err;
    }
  }
  if (running) {
    // The daemon starts the thread that reads the file now, while this CLI checks it (a new
    // thread costs ~55 ms before the first worker can fork). A daemon without it says so: ignored.
    if (warmConfigReader) running.request('warm-reader').catch(() => {});
    await Promise.resolve(checked).catch((err) => {
      running.close();
      throw err;
    });
    return running;
  }
  const early = checked !== undefined && fs.existsSync(home);
  if (!early) await checked;
  let launched;
  try {
    launched = launch(home, { warm: warmConfigReader, gated: early, timeout });
  } catch (err) {
    await checked; // a refused file says so first, as when the check ran before the launch
    throw err;
  }
  const { child, outcome, errFile } = launched;
  if (early) {
    try {
      await checked;
    } catch (err) {
      // The held daemon exits, having touched nothing; gone before this CLI says why.
      const exited = /** @type {Promise<void>} */ (new Promise((resolve) => (child.exitCode === null && child.signalCode === null ? child.once('exit', resolve) : resolve())));
      if (child.connected) child.disconnect();
      await exited;
      throw err;
    }
    child.send(goMessage(), () => {}); // a daemon that died meanwhile: its 'close' says so
  }
  const result = await outcome;
  if (child.connected) child.disconnect();
  child.unref();
  if (result.ready) return connect(home);
  if (result.code === EXIT_ALREADY_RUNNING) return connectWithRetry(home, timeout);
  const why = (result.failed && `${result.failed.code}: ${result.failed.message}`) || tail(errFile) || (result.timeout ? `it said neither ready nor failed within ${timeout} ms (pid ${child.pid}, still running: see \`super ls\` and ${errFile})` : `it exited with code ${result.code}`);
  throw new SuperError('E_DAEMON_START', `the daemon could not be started: ${why}`);
}

/** Spawns the daemon; `outcome` resolves with its word (ready, failed) or its exit. */
function launch(home, { warm, gated, timeout }) {
  // The home is checked (ours, closed to others) before a file is opened in it, and the
  // daemon's stderr file is never opened through a link planted at its name.
  const errFile = daemonErrPath(home);
  let errFd;
  try {
    prepareHome(home);
    errFd = fs.openSync(errFile, ERR_FLAGS, 0o600);
  } catch (err) {
    const why = err instanceof SuperError ? err.message : `cannot open ${errFile}: ${err.code === 'ELOOP' ? 'it is a symbolic link; remove it' : describeIo(err)}`;
    throw new SuperError('E_DAEMON_START', `the daemon could not be started: ${why}`);
  }
  const child = spawn(process.execPath, [...(warm ? ['--import', warmReaderUrl] : []), daemonPath], {
    detached: true,
    stdio: ['ignore', errFd, errFd, 'ipc'],
    env: { ...process.env, SUPER_HOME: home, ...(gated ? { [GATE_ENV]: '1' } : {}) },
  });
  fs.closeSync(errFd);
  const outcome = new Promise((resolve) => {
    const timer = setTimeout(() => resolve({ timeout: true }), timeout);
    timer.unref(); // the IPC channel keeps this process waiting; a held daemon sent away leaves no timer behind
    let failed = null;
    child.on('message', (/** @type {{cmd?: string, error?: string}} */ m) => {
      if (m?.cmd === LAUNCH.FAILED) failed = m.error;
      if (m?.cmd === LAUNCH.READY) {
        clearTimeout(timer);
        resolve({ ready: true });
      }
    });
    // 'close', not 'exit': it comes after the last IPC message (the failure) was read.
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, failed });
    });
  });
  return { child, outcome, errFile };
}

/** The winner of a launch race may still be binding its socket: retry briefly. */
async function connectWithRetry(home, timeout) {
  const deadline = Date.now() + timeout;
  for (let wait = 20; ; wait = Math.min(wait * 2, 250)) {
    try {
      return await connect(home);
    } catch (err) {
      if (err.code !== 'E_NO_DAEMON' || Date.now() > deadline) throw err;
      await new Promise((r) => setTimeout(r, wait));
    }
  }
}

function tail(file) {
  try {
    return fs.readFileSync(file, 'utf8').trim().split('\n').slice(-1)[0];
  } catch {
    return '';
  }
}
