// `super run` as PID 1 (a container's entry point): PID 1 must reap every orphan that is
// reparented to it, and Node can only wait for its own children. So PID 1 starts
// `tini -s` (a subreaper: orphans below it are reparented to it, and it reaps them) with
// the real `super run` under it, forwards signals to it and exits with its status. Without
// tini it says so and runs on: zombies would pile up (use `docker run --init`).
import { spawn, spawnSync } from 'node:child_process';
import { SuperError } from '../errors.js';
import { printError } from './coded-error.js';

export const REAPED = 'SUPER_RUN_REAPED';

/** Whether this process should hand over to a reaper (PID 1, not already under one). */
export const needsReaper = () => process.pid === 1 && !process.env[REAPED];

/** Runs `argv` (this same command) under `tini -s`; resolves with the exit status to use. */
export function runUnderReaper(argv) {
  if (spawnSync('tini', ['--version'], { stdio: 'ignore' }).status !== 0) {
    process.stderr.write('super: warning: running as PID 1 without tini: orphaned processes will not be reaped; install tini (apt-get install tini) or use `docker run --init`\n');
    return null;
  }
  const child = spawn('tini', ['-s', '-g', '--', process.execPath, ...argv], { stdio: 'inherit', env: { ...process.env, [REAPED]: '1' } });
  for (const sig of /** @type {NodeJS.Signals[]} */ (['SIGTERM', 'SIGINT', 'SIGHUP', 'SIGUSR1', 'SIGUSR2', 'SIGQUIT'])) {
    process.on(sig, () => child.kill(sig));
  }
  return new Promise((resolve) => {
    child.on('error', (err) => {
      resolve(printError(new SuperError('E_INTERNAL', `cannot start tini: ${err.message}`)));
    });
    child.on('exit', (code, signal) => resolve(code ?? 128 + (signal ? { SIGKILL: 9, SIGTERM: 15, SIGINT: 2 }[signal] ?? 1 : 1)));
  });
}
