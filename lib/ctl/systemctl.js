// Where units live, and systemctl calls that report instead of throwing (there may be no
// running systemd at all: containers, CI).
import os from 'node:os';
import path from 'node:path';
import { spawnSync } from 'node:child_process';

export const systemUnitDir = () => '/etc/systemd/system';
export const userUnitDir = () => path.join(process.env.XDG_CONFIG_HOME || path.join(os.homedir(), '.config'), 'systemd', 'user');

/** Runs systemctl; true on success, false (after saying why on stderr) otherwise. */
export function systemctl(args) {
  const r = spawnSync('systemctl', args, { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
  if (r.status === 0) return true;
  const why = r.error ? /** @type {NodeJS.ErrnoException} */ (r.error).code : (r.stderr || r.stdout).trim().split('\n')[0];
  process.stderr.write(`super: warning: systemctl ${args.join(' ')} failed: ${why}\n`);
  return false;
}
