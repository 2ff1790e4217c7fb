// super restart <targets...>
import { request } from '../session.js';
import { printOutcome } from '../report.js';
import { toTargets } from '../targets.js';

export default async function restart(targets) {
  const data = await request('restart', { target: toTargets(targets) }, { timeout: 0 });
  process.stdout.write(data.apps.length ? `restarted ${data.apps.join(', ')}\n` : 'no apps\n');
  return printOutcome(data);
}
