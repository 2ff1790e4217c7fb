// super watch <app> on|off: watch mode for a running app (reload when its files change).
import { request } from '../session.js';
import { SuperError } from '../../errors.js';

export default async function watch(app, state) {
  if (state !== 'on' && state !== 'off') throw new SuperError('E_USAGE', `say on or off (got "${state}")`);
  const data = await request('watch', { app, on: state === 'on' });
  process.stdout.write(data.watch.length ? `${data.app}: watching ${data.watch.join(', ')}\n` : `${data.app}: not watching\n`);
}
