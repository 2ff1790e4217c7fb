// super reload-logs: reopen every log file at its path (after an external logrotate moved
// them). Same as `kill -USR2 <daemon pid>`.
import { request } from '../session.js';

export default async function reloadLogs() {
  const data = await request('reload-logs');
  process.stdout.write(`reopened ${data.files.length} log file(s) of ${data.apps.length} app(s) and daemon.log\n`);
}
