// The user's per-host step of `super deploy --step CMD`: a shell command run on the CLI's
// machine (it usually ssh-es or rsyncs to the host) that puts a release in place before the
// host is reloaded, and puts the previous one back on a revert. Bounded: killed (its whole
// process group) after the step timeout; only the tail of its output is kept, for the error.
import { spawn } from 'node:child_process';

const KEEP = 4096; // bytes of its output kept for the failure's reason

/**
 * Runs `cmd` with the host's and release's variables; resolves null, or why it failed.
 * @param {string} cmd
 * @param {{release: string, previous: string|null, server: string, host: string, revert: boolean}} about
 * @param {number} timeoutMs
 * @returns {Promise<string|null>}
 */
export function runStep(cmd, about, timeoutMs) {
  return new Promise((resolve) => {
    const env = {
      ...process.env,
      SUPER_DEPLOY_RELEASE: about.release,
      SUPER_DEPLOY_SERVER: about.server,
      SUPER_DEPLOY_HOST: about.host,
      SUPER_DEPLOY_REVERT: about.revert ? '1' : '0',
      ...(about.previous && { SUPER_DEPLOY_PREVIOUS: about.previous }),
    };
    const child = spawn('/bin/sh', ['-c', cmd], { env, stdio: ['ignore', 'pipe', 'pipe'], detached: true });
    let tail = '';
    const keep = (d) => (tail = (tail + d).slice(-KEEP));
    child.stdout.on('data', keep);
    child.stderr.on('data', keep);
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      try {
        process.kill(-(child.pid ?? 0), 'SIGKILL');
      } catch { /* already gone */ }
    }, timeoutMs);
    child.on('error', (err) => {
      clearTimeout(timer);
      resolve(`the step could not run (${err.message})`);
    });
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      if (code === 0) return resolve(null);
      const last = tail.trim().split('\n').pop()?.slice(0, 300) ?? '';
      const how = timedOut ? `did not finish within ${timeoutMs / 1000} s` : signal ? `was killed by ${signal}` : `exited with ${code}`;
      resolve(`the step ${how}${last ? `: ${last}` : ''}`);
    });
  });
}
