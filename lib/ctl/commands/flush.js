// super flush [app|all]: empty an app's log files (writers go on at the start of the file)
// and remove its rotated files.
import { request } from '../session.js';

export default async function flush(target = 'all') {
  const data = await request('flush', { target });
  process.stdout.write(`flushed ${data.apps.join(', ') || 'no apps'} (${data.files.length} file(s))\n`);
}
