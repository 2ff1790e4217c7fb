// super reset <targets...>: restart counters back to 0 (PM2's `pm2 reset`).
import { request } from '../session.js';
import { toTargets } from '../targets.js';

export default async function reset(targets) {
  const data = await request('reset', { target: toTargets(targets) });
  process.stdout.write(data.apps.length ? `reset the restart counters of ${data.apps.join(', ')}\n` : 'no apps\n');
}
