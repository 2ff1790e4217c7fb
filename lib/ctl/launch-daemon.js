// Starts the daemon detached when none answers, and waits until it does.
// Two `super start` at once may both launch one: the daemon's pid file lets exactly one
// win; the other exits with EXIT_ALREADY_RUNNING and its CLI connects to the winner.
import fs from 'node:fs';
import path from 'node:path';
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { connect } from '../ipc/client.js';
import { SuperError } from '../errors.js';
import { daemonErrPath } from '../home.js';

const daemonPath = path.join(path.dirname(fileURLToPath(import.meta.url)), '..', 'master', 'core', 'daemon.js');
const EXIT_ALREADY_RUNNING = 10; // lib/master/core/daemon.js (not imported: that would boot it)

export async function ensureDaemon(home, { timeout = 15000 } = {}) {
  try {
    return await connect(home);
  } catch (err) {
    if (err.code !== 'E_NO_DAEMON') throw err;
  }
  fs.mkdirSync(home, { recursive: true, mode: 0o700 });
  const errFile = daemonErrPath(home);
  const errFd = fs.openSync(errFile, 'w', 0o600);
  const child = spawn(process.execPath, [daemonPath], {
    detached: true,
    stdio: ['ignore', errFd, errFd, 'ipc'],
    env: { ...process.env, SUPER_HOME: home },
  });
  fs.closeSync(errFd);
  const outcome = await new Promise((resolve) => {
    const timer = setTimeout(() => resolve({ timeout: true }), timeout);
    child.on('message', (m) => {
      if (m?.cmd === 'super:daemon-ready') {
        clearTimeout(timer);
        resolve({ ready: true });
      }
    });
    child.on('exit', (code) => {
      clearTimeout(timer);
      resolve({ code });
    });
  });
  if (child.connected) child.disconnect();
  child.unref();
  if (outcome.ready) return connect(home);
  if (outcome.code === EXIT_ALREADY_RUNNING) return connectWithRetry(home, timeout);
  const why = tail(errFile) || (outcome.timeout ? `no answer within ${timeout} ms` : `it exited with code ${outcome.code}`);
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
