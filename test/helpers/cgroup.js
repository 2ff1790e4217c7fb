// A `super` command run inside a cgroup, as a container's entry would be: a shell that
// writes its own pid to the group's cgroup.procs, then execs the CLI (so the CLI, and a
// daemon it starts, are in the group from their first instruction).
import path from 'node:path';
import { spawn } from 'node:child_process';
import { SUPER, ROOT } from './harness.js';

/**
 * `super ...args` inside cgroup directory `dir`, with the sandbox's SUPER_HOME.
 * @param {{home: string}} box  @param {string} dir  @param {string[]} args
 * @returns {Promise<{code: number|null, stdout: string, stderr: string, out: string}>}  out: both streams
 */
export function superInCgroup(box, dir, args) {
  return new Promise((resolve, reject) => {
    const child = spawn('sh', ['-c', 'echo $$ > "$0" && exec "$@"', path.join(dir, 'cgroup.procs'), process.execPath, SUPER, ...args], {
      cwd: ROOT,
      env: { ...process.env, SUPER_HOME: box.home, NO_COLOR: '1' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    let out = '';
    child.stdout.on('data', (d) => { stdout += d; out += d; });
    child.stderr.on('data', (d) => { stderr += d; out += d; });
    const timer = setTimeout(() => child.kill('SIGKILL'), 60000);
    child.on('error', reject);
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr, out });
    });
  });
}
