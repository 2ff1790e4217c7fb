// super delete <app|all>
import { request } from '../session.js';

export default async function del(target) {
  const data = await request('delete', { target }, { timeout: 0 });
  process.stdout.write(data.apps.length ? `deleted ${data.apps.join(', ')}\n` : 'no apps\n');
}
