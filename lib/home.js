// Where a daemon keeps its files. One daemon per SUPER_HOME.
import os from 'node:os';
import path from 'node:path';

export function superHome(env = process.env) {
  return path.resolve(env.SUPER_HOME || path.join(os.homedir(), '.super'));
}

export const socketPath = (home) => path.join(home, 'super.sock');
export const pidPath = (home) => path.join(home, 'daemon.pid');
export const daemonLogPath = (home) => path.join(home, 'daemon.log');
export const daemonErrPath = (home) => path.join(home, 'daemon.err');
export const logsDir = (home) => path.join(home, 'logs');
export const tokenPath = (home) => path.join(home, 'token');
