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

const daemonPath = path.join(path.dirname(fileURLToPath(import.meta.url)), '..', 'master', 'core', 'daemon.js');
const warmReaderUrl = new URL('../config/warm-reader.js', import.meta.url).href;
const EXIT_ALREADY_RUNNING = 10; // lib/master/core/daemon.js (not imported: that would boot it)
const ERR_FLAGS = fs.constants.O_WRONLY | fs.constants.O_CREAT | fs.constants.O_TRUNC | fs.constants.O_NOFOLLOW;

/**
 * Connects to the daemon of `home`, starting one detached when none answers. Waits for the
 * daemon's own word: "ready", or the error it failed with (sent over IPC too, since a full
 * disk can leave daemon.err empty), or its exit. `timeout` only bounds a daemon that says
 * nothing at all. `warmConfigReader`: an ecosystem file is sent next; a new daemon starts the
 * thread that reads it at once (lib/config/warm-reader.js).
 */
export async function ensureDaemon(home, { timeout = 120000, warmConfigReader = false } = {}) {
  try {
    return await connect(home);
  } catch (err) {
    if (err.code !== 'E_NO_DAEMON') throw err;
  }
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
  const child = spawn(process.execPath, [...(warmConfigReader ? ['--import', warmReaderUrl] : []), daemonPath], {
    detached: true,
    stdio: ['ignore', errFd, errFd, 'ipc'],
    env: { ...process.env, SUPER_HOME: home },
  });
  fs.closeSync(errFd);
  const outcome = await new Promise((resolve) => {
    const timer = setTimeout(() => resolve({ timeout: true }), timeout);
    let failed = null;
    child.on('message', (m) => {
      if (m?.cmd === 'super:daemon-failed') failed = m.error;
      if (m?.cmd === 'super:daemon-ready') {
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
  if (child.connected) child.disconnect();
  child.unref();
  if (outcome.ready) return connect(home);
  if (outcome.code === EXIT_ALREADY_RUNNING) return connectWithRetry(home, timeout);
  const why = (outcome.failed && `${outcome.failed.code}: ${outcome.failed.message}`) || tail(errFile) || (outcome.timeout ? `it said neither ready nor failed within ${timeout} ms (pid ${child.pid}, still running: see \`super ls\` and ${errFile})` : `it exited with code ${outcome.code}`);
  throw new SuperError('E_DAEMON_START', `the daemon could not be started: ${why}`);
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
