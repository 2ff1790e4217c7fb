// The real PM2 (the devDependency) for tests that compare superd with it: a private
// PM2_HOME, and a reaper that ends PM2's daemon and apps whatever ends the test.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { spawn } from 'node:child_process';
import { ROOT, runProcess } from './harness.js';

export const PM2 = path.join(ROOT, 'node_modules', 'pm2', 'bin', 'pm2');

/**
 * Whatever ends this test (its end, a failure, the runner killing it at its time bound),
 * PM2's daemon and apps end too: a detached reaper waits for this process to exit, or for
 * SIGUSR2, then SIGKILLs PM2's daemon and every process running with this PM2_HOME (the
 * apps of a daemon that did not answer `pm2 kill`), and removes the directory.
 */
const REAPER = `const fs = require('fs');
const [parent, home] = process.argv.slice(1);
const reap = () => {
  const kill = (pid) => { try { process.kill(pid, 'SIGKILL'); } catch {} };
  try { kill(Number(fs.readFileSync(home + '/pm2.pid', 'utf8'))); } catch {} // first: it forks no more
  for (const d of fs.readdirSync('/proc')) {
    if (!/^\\d+$/.test(d)) continue;
    try { if (fs.readFileSync('/proc/' + d + '/environ', 'latin1').split('\\0').includes('PM2_HOME=' + home)) kill(Number(d)); } catch {}
  }
  fs.rmSync(home, { recursive: true, force: true });
  process.exit(0);
};
process.on('SIGUSR2', reap);
setInterval(() => { try { process.kill(Number(parent), 0); } catch { reap(); } }, 500);
`;

/** Starts the reaper of `pm2Home`; -> stop(): `pm2 kill` (bounded), then the reaper reaps. */
function pm2Reaper(pm2Home, env) {
  const { PM2_HOME, ...clean } = env; // the reaper must not find itself
  const reaper = spawn(process.execPath, ['-e', REAPER, String(process.pid), pm2Home], { env: clean, detached: true, stdio: 'ignore' });
  reaper.unref();
  return async () => {
    await runProcess(process.execPath, [PM2, 'kill'], { cwd: os.tmpdir(), env, timeout: 10000 }).catch(() => {});
    const exited = new Promise((resolve) => reaper.once('exit', resolve));
    reaper.ref(); // waited for now
    reaper.kill('SIGUSR2');
    await exited;
  };
}

/**
 * A private PM2 for this test: its PM2_HOME (outside any sandbox, whose own cleanup runs
 * first and would take PM2's pid file), the environment to run `pm2` with, and the reaper.
 * @param {import('node:test').TestContext} t
 */
export function privatePm2(t) {
  const home = fs.mkdtempSync(path.join(os.tmpdir(), 'pm2o-'));
  const env = { ...process.env, PM2_HOME: home, PM2_DISCRETE_MODE: 'true', PM2_SILENT: 'true' };
  // PM2 passes its environment on to its apps: none of the test's own superd or app variables.
  for (const k of Object.keys(env)) if (k.startsWith('SUPER_') || k === 'NODE_APP_INSTANCE' || k === 'PORT') delete env[k];
  t.after(pm2Reaper(home, env));
  /** Runs `pm2 ...args` in `cwd` (`more`: variables of its shell); resolves {code, stdout, stderr}. */
  const cli = (args, cwd, more = {}) => runProcess(process.execPath, [PM2, ...args], { cwd, env: { ...env, PWD: cwd, ...more }, timeout: 60000 });
  return { home, env, cli };
}
