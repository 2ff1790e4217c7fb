// The running daemon's side of `super upgrade`: start a successor daemon with every
// listening socket this daemon holds (its apps' sockets and the TCP control listener, as
// extra stdio descriptors: fd 4, 5, ...) and its state, wait until the successor's workers
// are ready, tell it to commit, and leave the rest (retiring this daemon's workers
// gracefully, exiting) to the caller. A successor that fails, exits or is not ready in time
// is stopped; this daemon changed nothing and goes on serving.
import fs from 'node:fs';
import { spawn } from 'node:child_process';
import { SuperError } from '../../errors.js';
import { daemonErrPath, socketPath } from '../../home.js';
import { successorControlPath } from './handover.js';
import { listeningSockets } from './listening-sockets.js';
import { reusePortFds } from '../process/index.js';
import { message, isStep } from './messages.js';

const FIRST_FD = 4; // 0-2 stdio, 3 the IPC channel
export const BOOT_MARGIN = 15000; // boot and state load, beyond the apps' own listen_timeout and probation
const STOP_GRACE = 30000; // a failed successor stops its own workers; then SIGKILL
const TAIL_BYTES = 4096;

/**
 * @param {object} o
 * @param {string} o.home
 * @param {{entry: string}} o.pkg  the superd to start (daemon-package.js)
 * @param {{apps: object[], daemon: object}} o.state  what the successor runs
 * @param {number} o.deadline  ms the successor gets to be ready
 * @param {(text: string) => void} o.progress
 * @param {import('../../logs/json-logger.js').JsonLogger} o.log
 * @returns {Promise<{pid: number}>} once the successor owns the control socket and pid file
 * @throws {SuperError} E_UPGRADE_FAILED, with the successor's stderr tail
 */
export async function startSuccessor({ home, pkg, state, deadline, progress, log }) {
  const sockets = listeningSockets();
  const slotFds = new Set(reusePortFds());
  const errFile = daemonErrPath(home);
  const errFd = fs.openSync(errFile, 'a', 0o600);
  const errStart = fs.fstatSync(errFd).size;
  let child;
  try {
    child = spawn(process.execPath, [pkg.entry], {
      detached: true, // its own session, as a daemon started by `super start`
      stdio: ['ignore', errFd, errFd, 'ipc', ...sockets.map((s) => s.fd)],
      env: {
        ...process.env, SUPERD_UPGRADE: '1', SUPERD_LISTEN_FDS: sockets.map((_, i) => FIRST_FD + i).join(','),
        // which of them are reuseport apps' slot sockets (the successor serves them as such: reuse-port.js)
        SUPERD_REUSEPORT_FDS: sockets.flatMap((s, i) => (slotFds.has(s.fd) ? [FIRST_FD + i] : [])).join(','),
      },
    });
  } finally {
    fs.closeSync(errFd);
  }
  log.info({ pid: child.pid, entry: pkg.entry, sockets: sockets.map((s) => `${s.address}:${s.port}`) }, 'upgrade: successor started');
  progress(`successor daemon started (pid ${child.pid}) with ${sockets.length} listening socket(s)`);

  const exited = new Promise((resolve) => child.once('exit', (code, signal) => resolve({ code, signal })));
  let failure = /** @type {{message?: string}|null} */ (null); // set by the 'message' listener
  child.on('message', (/** @type {{text?: string, message?: string}} */ m) => {
    if (isStep(m, 'progress') && typeof m.text === 'string') progress(m.text.slice(0, 500));
    if (isStep(m, 'failed')) failure = m;
  });
  child.on('error', () => {}); // an IPC write after its death: seen as its exit
  const step = (name) => new Promise((resolve) => child.on('message', (m) => isStep(m, name) && resolve(m)));
  const ready = step('ready');
  const committed = step('committed');
  child.send(message('state', { state }));

  const outcome = await raceWithTimeout([ready.then(() => 'ready'), exited.then(() => 'exited')], deadline);
  if (outcome === 'ready') {
    child.send(message('commit'));
    const done = await raceWithTimeout([committed.then(() => 'committed'), exited.then(() => 'exited')], BOOT_MARGIN);
    if (done === 'committed' && child.pid !== undefined) { // a successor that committed runs: it has a pid
      if (child.connected) child.disconnect();
      child.unref();
      return { pid: child.pid };
    }
  }
  // Not ready in time, failed, or gone: make sure it is gone (it stops its own workers).
  if (outcome === 'timeout' || !failure) child.kill('SIGTERM');
  const gone = await raceWithTimeout([exited.then(() => 'exited')], STOP_GRACE);
  if (gone === 'timeout') child.kill('SIGKILL');
  const exit = await exited;
  fs.rmSync(successorControlPath(socketPath(home), child.pid), { force: true }); // left by a killed successor
  const why = failure?.message
    ?? (outcome === 'timeout' ? `its workers were not ready within ${deadline} ms` : `it exited (${exit.signal ?? `code ${exit.code}`}) before its workers were ready`);
  log.warn({ pid: child.pid, why }, 'upgrade failed; this daemon keeps serving');
  const tail = readTail(errFile, errStart);
  throw new SuperError('E_UPGRADE_FAILED', `the new daemon did not take over: ${why}; this daemon and its workers keep serving`,
    tail ? { stderr: tail, stderr_label: `successor ${child.pid}` } : undefined);
}

function raceWithTimeout(promises, ms) {
  let timer;
  const timeout = new Promise((resolve) => (timer = setTimeout(() => resolve('timeout'), ms)));
  return Promise.race([...promises, timeout]).finally(() => clearTimeout(timer));
}

/** The successor's part of daemon.err (what it wrote since `from`), its last lines. */
function readTail(file, from) {
  try {
    const fd = fs.openSync(file, 'r');
    try {
      const size = fs.fstatSync(fd).size;
      const start = Math.max(from, size - TAIL_BYTES);
      const buf = Buffer.alloc(Math.max(0, size - start));
      fs.readSync(fd, buf, 0, buf.length, start);
      return buf.toString('utf8').trim().split('\n').slice(-15).join('\n');
    } finally {
      fs.closeSync(fd);
    }
  } catch {
    return '';
  }
}
