// super stop <app|all>
import { request } from '../session.js';

export default async function stop(target) {
  const data = await request('stop', { target }, { timeout: 0 });
  process.stdout.write(data.apps.length ? `stopped ${data.apps.join(', ')}\n` : 'no apps\n');
}
