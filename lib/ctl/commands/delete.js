// super delete <targets...>
import { request } from '../session.js';
import { toTargets } from '../targets.js';

export default async function del(targets) {
  const data = await request('delete', { target: toTargets(targets) }, { timeout: 0 });
  process.stdout.write(data.apps.length ? `deleted ${data.apps.join(', ')}\n` : 'no apps\n');
}
