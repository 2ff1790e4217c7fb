// super save [--force]: the daemon writes its running apps to $SUPER_HOME/dump.json.
import { request } from '../session.js';

export default async function save(opts = {}) {
  const data = await request('save', opts.force ? { force: true } : {});
  process.stdout.write(`saved ${data.apps.length} app(s) to ${data.file}${data.apps.length ? `: ${data.apps.join(', ')}` : ''}\n`);
  if (data.skipped.length) process.stdout.write(`not saved (stopped): ${data.skipped.join(', ')}\n`);
  if (data.replaced !== null) process.stdout.write(`previous dump kept as ${data.file}.bak\n`);
  if (data.corrupt) process.stdout.write(`the corrupt dump was moved aside as ${data.corrupt}; ${data.file}.bak is unchanged\n`);
}
