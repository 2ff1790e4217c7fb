// super monit: the live dashboard (lib/ctl/monit/).
import { SuperError } from '../../errors.js';

export default async function monit() {
  if (!process.stdout.isTTY || !process.stdin.isTTY) {
    throw new SuperError('E_USAGE', 'super monit needs an interactive terminal (stdin and stdout must be a TTY); for a one-shot view use `super ls` or `super ls --json`');
  }
  const { runDashboard } = await import('../monit/dashboard.js');
  return runDashboard();
}
