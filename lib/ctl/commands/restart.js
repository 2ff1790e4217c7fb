// super restart <targets...> [--update-env]: one ecosystem file as the target (`super restart
// ecosystem.config.js [--env production] [--only a,b]`) is PM2's startOrRestart
// (start-or.js): its apps not running are started, the others restarted with its config.
// --update-env: the workers get this shell's environment under each app's own env (the
// file's env wins, as in PM2), from then on.
import { request } from '../session.js';
import { printOutcome } from '../report.js';
import { toTargets } from '../targets.js';
import { fileAsPm2Does } from '../file-target.js';
import { updatedEnv } from '../caller-env.js';

export default async function restart(targets, opts = {}) {
  if (fileAsPm2Does(targets, opts)) return (await import('./start-or.js')).default(targets[0], { ...opts, then: 'restart' });
  const data = await request('restart', { target: toTargets(targets), updateEnv: updatedEnv(opts) }, { timeout: 0 });
  process.stdout.write(data.apps.length ? `restarted ${data.apps.join(', ')}\n` : 'no apps\n');
  return printOutcome(data);
}
