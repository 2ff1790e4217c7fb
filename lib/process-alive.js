// Whether a process still runs. A detached daemon is reparented when the CLI that started
// it exits, and stays a zombie until its new parent reaps it (which can take seconds);
// kill(pid, 0) succeeds on a zombie, so on Linux its state is read from /proc.
import fs from 'node:fs';

export function processAlive(pid) {
  try {
    process.kill(pid, 0);
  } catch (err) {
    if (err.code !== 'EPERM') return false;
  }
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat[stat.lastIndexOf(')') + 2] !== 'Z';
  } catch {
    return process.platform !== 'linux';
  }
}
