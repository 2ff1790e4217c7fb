// One daemon per SUPER_HOME. The pid file appears complete or not at all: the pid is
// written to a private temp file which is then hard-linked into place (link fails with
// EEXIST when the name is taken), so of two daemons booting at once exactly one wins and
// the other never reads a half-written file. A pid file left by a killed daemon (its pid
// dead, or reused by a process that is not a superd daemon) is removed and retried.
import fs from 'node:fs';
import { SuperError } from '../../errors.js';
import { processAlive } from '../../process-alive.js';

// A superd daemon's command line: `node .../lib/master/core/daemon.js`, `super daemon` or `super run`.
const DAEMON_CMDLINE = /lib\/master\/core\/daemon\.js|super(\.js)?\0(daemon|run)\0/;

function isDaemon(pid) {
  if (!processAlive(pid)) return false;
  try {
    return DAEMON_CMDLINE.test(fs.readFileSync(`/proc/${pid}/cmdline`, 'utf8'));
  } catch {
    return process.platform !== 'linux'; // cannot tell: assume alive
  }
}

function readPid(file) {
  try {
    return Number(fs.readFileSync(file, 'utf8').trim());
  } catch (err) {
    if (err.code === 'ENOENT') return null; // removed meanwhile: try again
    throw new SuperError('E_HOME', `cannot read ${file}: ${err.code}`);
  }
}

/** Links a file holding our pid at `file`; false when the name is taken. */
function linkOwnPid(file) {
  const tmp = `${file}.${process.pid}.tmp`;
  try {
    fs.writeFileSync(tmp, `${process.pid}\n`, { mode: 0o600 });
    fs.linkSync(tmp, file);
    return true;
  } catch (err) {
    if (err.code === 'EEXIST') return false;
    throw new SuperError('E_HOME', `cannot write ${file}: ${err.code}`);
  } finally {
    fs.rmSync(tmp, { force: true });
  }
}

export function acquirePidFile(file) {
  for (let attempt = 0; attempt < 3; attempt++) {
    if (linkOwnPid(file)) return;
    const pid = readPid(file);
    if (pid === null) continue;
    if (pid > 0 && pid !== process.pid && isDaemon(pid)) {
      throw new SuperError('E_DAEMON_RUNNING', `a daemon (pid ${pid}) already runs for this SUPER_HOME`);
    }
    // Stale. Remove it only if it still holds the pid we judged: a daemon that won the
    // retry meanwhile must keep its fresh file.
    if (readPid(file) === pid) fs.rmSync(file, { force: true });
  }
  throw new SuperError('E_DAEMON_RUNNING', `could not take ${file}; another daemon is starting`);
}

export function releasePidFile(file) {
  try {
    if (Number(fs.readFileSync(file, 'utf8').trim()) === process.pid) fs.rmSync(file, { force: true });
  } catch {}
}

/**
 * Puts our pid in the file whoever holds it (`super upgrade`: the successor takes over from
 * the daemon it replaces). A rename: readers see the old pid or the new one, never neither.
 */
export function replacePidFile(file) {
  const tmp = `${file}.${process.pid}.tmp`;
  try {
    fs.writeFileSync(tmp, `${process.pid}\n`, { mode: 0o600 });
    fs.renameSync(tmp, file);
  } catch (err) {
    fs.rmSync(tmp, { force: true });
    throw new SuperError('E_HOME', `cannot write ${file}: ${err.code}`);
  }
}
