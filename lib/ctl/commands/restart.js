// super restart <app|all>
import { request } from '../session.js';
import { printOutcome } from '../report.js';

export default async function restart(target) {
  const data = await request('restart', { target }, { timeout: 0 });
  process.stdout.write(data.apps.length ? `restarted ${data.apps.join(', ')}\n` : 'no apps\n');
  return printOutcome(data);
}
