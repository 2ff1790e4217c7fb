// One daemon per SUPER_HOME. The pid file appears complete or not at all: the pid is
// written to a private temp file which is then hard-linked into place (link fails with
// EEXIST when the name is taken), so of two daemons booting at once exactly one wins and
// the other never reads a half-written file.
// A pid file blocks a start only when it names a live process that is the daemon of THIS
// SUPER_HOME: its environment says so (SUPER_HOME, else HOME/.super, as lib/home.js reads
// it). Anything else is stale and removed: content that is not a pid (NUL bytes, text), a
// dead pid, a pid reused by another program, or a superd daemon of another SUPER_HOME. The
// daemon of a home runs as the home's owner (lib/home.js refuses other homes), so a
// process whose environment we may not read is not it.
import fs from 'node:fs';
import path from 'node:path';
import { SuperError } from '../../errors.js';
import { processAlive } from '../../process-alive.js';
import { describeIo } from '../../home.js';

const PID_TEXT = /^(\d{1,7})\n?$/;
const MAX_PID = 4194304; // Linux's PID_MAX_LIMIT
const MAX_PID_FILE = 64; // bytes read: a pid file is never longer

/** The pid a pid file's text names, or null when it is not one. */
function parsePid(text) {
  const m = PID_TEXT.exec(text);
  const pid = m ? Number(m[1]) : 0;
  return pid > 1 && pid <= MAX_PID ? pid : null;
}

/** Whether `pid` is a live process whose environment makes `home` its SUPER_HOME. */
function isDaemonOf(pid, home) {
  if (pid === process.pid || !processAlive(pid)) return false;
  if (process.platform !== 'linux') return true; // no /proc to ask: assume it is
  let env;
  let cwd;
  try {
    env = parseEnviron(fs.readFileSync(`/proc/${pid}/environ`, 'utf8'));
    cwd = fs.readlinkSync(`/proc/${pid}/cwd`);
  } catch {
    return false; // gone, or not ours to read: not the daemon of a home we own
  }
  // As lib/home.js superHome() resolved it in that process.
  const theirs = env.SUPER_HOME ? path.resolve(cwd, env.SUPER_HOME) : env.HOME ? path.join(env.HOME, '.super') : null;
  return theirs !== null && realpath(theirs) === realpath(home);
}

function parseEnviron(text) {
  const env = {};
  for (const kv of text.split('\0')) {
    const eq = kv.indexOf('=');
    if (eq > 0) env[kv.slice(0, eq)] = kv.slice(eq + 1);
  }
  return env;
}

function realpath(p) {
  try {
    return fs.realpathSync(p);
  } catch {
    return p;
  }
}

/**
 * The pid file's text (bounded), or null when it is gone. Opened without blocking and
 * read only if it is a regular file: a FIFO at its name would hang any plain read.
 */
function readText(file) {
  let fd;
  try {
    fd = fs.openSync(file, fs.constants.O_RDONLY | fs.constants.O_NOFOLLOW | fs.constants.O_NONBLOCK);
    if (!fs.fstatSync(fd).isFile()) throw new SuperError('E_HOME', `${file} is not a regular file (a FIFO, socket or device); remove it, then start again`);
    const buf = Buffer.alloc(MAX_PID_FILE);
    return buf.toString('latin1', 0, fs.readSync(fd, buf, 0, MAX_PID_FILE, 0));
  } catch (err) {
    if (err instanceof SuperError) throw err;
    if (err.code === 'ENOENT') return null; // removed meanwhile: try again
    if (err.code === 'ELOOP') return ''; // a link planted at our path: stale
    throw new SuperError('E_HOME', `cannot read ${file}: ${err.code}`);
  } finally {
    if (fd !== undefined) fs.closeSync(fd);
  }
}

/** Links a file holding our pid at `file`; false when the name is taken. */
function linkOwnPid(file) {
  const tmp = `${file}.${process.pid}.tmp`;
  try {
    fs.writeFileSync(tmp, `${process.pid}\n`, { mode: 0o600, flag: 'wx' }); // O_EXCL: never through a link
    fs.linkSync(tmp, file);
    return true;
  } catch (err) {
    if (err.code === 'EEXIST') return false;
    throw new SuperError('E_HOME', `cannot write ${file}: ${describeIo(err)}`);
  } finally {
    fs.rmSync(tmp, { force: true });
  }
}

/**
 * Takes `file` ($SUPER_HOME/daemon.pid) for this process.
 * @throws {SuperError} E_DAEMON_RUNNING when the daemon of this home runs (exit 10: retrying
 *   cannot help); E_HOME when the file cannot be taken (exit 1: a retry can)
 */
export function acquirePidFile(file) {
  const home = path.dirname(path.resolve(file));
  fs.rmSync(`${file}.${process.pid}.tmp`, { force: true }); // left by a killed daemon of our pid
  for (let attempt = 0; attempt < 3; attempt++) {
    if (linkOwnPid(file)) return;
    const text = readText(file);
    if (text === null) continue;
    const pid = parsePid(text);
    if (pid !== null && isDaemonOf(pid, home)) {
      throw new SuperError('E_DAEMON_RUNNING', `a daemon (pid ${pid}) already runs for this SUPER_HOME`);
    }
    // Stale. Remove it only if it still holds what we judged: a daemon that won the
    // retry meanwhile must keep its fresh file.
    if (readText(file) === text) fs.rmSync(file, { force: true });
  }
  throw new SuperError('E_HOME', `could not take ${file}: other daemons are starting for this SUPER_HOME; try again`);
}

export function releasePidFile(file) {
  try {
    if (parsePid(readText(file) ?? '') === process.pid) fs.rmSync(file, { force: true });
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
