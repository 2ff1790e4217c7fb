// `super monit` off a terminal (piped, redirected, run by cron or CI): one plain-text frame
// of the dashboard's worker table, then exit 0; the note that says why there is no live view
// goes to stderr, so the pipe gets the table alone. No ANSI, no alternate screen, no keys:
// output a log or a pipe can keep.
import { connectDaemon } from '../session.js';
import { checkApps } from '../../ipc/daemon-input.js';
import { superHome } from '../../home.js';
import { MonitModel } from './model.js';
import { renderTable } from './render.js';

/**
 * @param {{why: string, home?: string, out?: NodeJS.WritableStream, notes?: NodeJS.WritableStream}} o
 *   why: which side is not a terminal, e.g. "stdout is not a terminal"
 * @returns {Promise<number>} the exit status
 */
export async function printSnapshot({ why, home = superHome(), out = process.stdout, notes = process.stderr }) {
  const client = await connectDaemon({ home });
  let snapshot;
  try {
    snapshot = checkApps(await client.request('ls'), { trim: false });
  } finally {
    client.close();
  }
  const model = new MonitModel();
  model.daemon = { pid: client.hello.pid };
  model.setSnapshot(snapshot);
  const note = `super monit: ${why}, so this is a single snapshot; run it in a terminal for the live dashboard`;
  notes.write(`${note}\n`);
  out.write(`${renderTable(model).join('\n')}\n`);
  return 0;
}
