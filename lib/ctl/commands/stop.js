// super stop <targets...> [--json]
import { request } from '../session.js';
import { toTargets } from '../targets.js';

export default async function stop(targets, opts = {}) {
  const data = await request('stop', { target: toTargets(targets) }, { timeout: 0 });
  if (opts.json) process.stdout.write(`${JSON.stringify(data)}\n`);
  else process.stdout.write(data.apps.length ? `stopped ${data.apps.join(', ')}\n` : 'no apps\n');
}
