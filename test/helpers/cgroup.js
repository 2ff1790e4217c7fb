// A `super` command run inside a cgroup, as a container's entry would be: a shell that
// writes its own pid to the group's cgroup.procs, then execs the CLI (so the CLI, and a
// daemon it starts, are in the group from their first instruction).
import path from 'node:path';
import { spawn } from 'node:child_process';
import { SUPER, ROOT } from './harness.js';

/**
 * `super ...args` inside cgroup directory `dir`, with the sandbox's SUPER_HOME.
 * @param {{home: string}} box  @param {string} dir  @param {string[]} args
 * @param {{timeout?: number, env?: Record<string, string>}} [o]  killed after timeout ms; env added to this process's
 * @returns {Promise<{code: number|null, stdout: string, stderr: string, out: string}>}  out: both streams
 */
export function superInCgroup(box, dir, args, { timeout = 60000, env = {} } = {}) {
  return new Promise((resolve, reject) => {
    const child = spawn('sh', ['-c', 'echo $$ > "$0" && exec "$@"', path.join(dir, 'cgroup.procs'), process.execPath, SUPER, ...args], {
      cwd: ROOT,
      env: { ...process.env, SUPER_HOME: box.home, NO_COLOR: '1', ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    let out = '';
    child.stdout.on('data', (d) => { stdout += d; out += d; });
    child.stderr.on('data', (d) => { stderr += d; out += d; });
    const timer = setTimeout(() => child.kill('SIGKILL'), timeout);
    child.on('error', reject);
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr, out });
    });
  });
}
