// Where a daemon keeps its files, and the checks that make SUPER_HOME safe to use. One
// daemon per SUPER_HOME. Shared by the daemon (at boot) and the CLI (`super token`).
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { SuperError } from './errors.js';
import { unsafeAncestorReason } from './dir-chain.js';

export function superHome(env = process.env) {
  return path.resolve(env.SUPER_HOME || path.join(os.homedir(), '.super'));
}

export const socketPath = (home) => path.join(home, 'super.sock');
export const pidPath = (home) => path.join(home, 'daemon.pid');
export const daemonLogPath = (home) => path.join(home, 'daemon.log');
export const daemonErrPath = (home) => path.join(home, 'daemon.err');
export const tokenPath = (home) => path.join(home, 'token');

/**
 * Creates SUPER_HOME (0700) if needed and checks it is ours and closed to others, and that
 * no one else can rename a directory above it: the control socket and the token inside are
 * the credentials.
 * @throws {SuperError} E_HOME
 */
export function prepareHome(home) {
  // Before anything is created: whoever can rename a directory above the home could swap it.
  const unsafe = unsafeAncestorReason(home);
  if (unsafe) throw new SuperError('E_HOME', `SUPER_HOME ${home} is not safe: ${unsafe}`);
  try {
    fs.mkdirSync(home, { recursive: true, mode: 0o700 });
  } catch (err) {
    throw new SuperError('E_HOME', `cannot create SUPER_HOME ${home}: ${describeIo(err)}`);
  }
  const st = fs.statSync(home);
  if (!st.isDirectory()) throw new SuperError('E_HOME', `SUPER_HOME ${home} is not a directory`);
  if (typeof process.getuid === 'function' && st.uid !== process.getuid()) {
    throw new SuperError('E_HOME', `SUPER_HOME ${home} belongs to uid ${st.uid}, not to you (uid ${process.getuid()}); use your own directory`);
  }
  if (st.mode & 0o022) {
    throw new SuperError('E_HOME', `SUPER_HOME ${home} is writable by group or others (mode ${(st.mode & 0o777).toString(8)}); run: chmod 700 ${home}`);
  }
}

/** An I/O error's code, said plainly when it is a full disk. */
export function describeIo(err) {
  if (err.code === 'ENOSPC' || err.code === 'EDQUOT') return `${err.code}: no space left on the device (disk or quota full); free some space`;
  return err.code ?? err.message;
}
