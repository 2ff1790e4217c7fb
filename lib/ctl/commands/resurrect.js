// super resurrect: start the apps saved by `super save` (starts the daemon if none runs).
// With no daemon running, the dump is read first: a missing or corrupt one, or one over
// the app limit, is said (E_DUMP) without starting a daemon that would have nothing to run
// (the daemon it would launch has this environment, so SUPER_MAX_APPS is the same).
import { superHome } from '../../home.js';
import { connect } from '../../ipc/client.js';
import { readDump, checkDumpApps } from '../../dump-file.js';
import { workLimits } from '../../config/work-limits.js';
import { ensureDaemon } from '../launch-daemon.js';
import { printOutcome } from '../report.js';
import { renderLs } from '../render-ls.js';

export default async function resurrect() {
  const home = superHome();
  let client = await connect(home).catch((err) => {
    if (err.code !== 'E_NO_DAEMON') throw err;
    return null;
  });
  if (!client) {
    checkDumpApps(await readDump(home), workLimits().apps);
    client = await ensureDaemon(home);
  }
  try {
    const data = await client.request('resurrect', {}, { timeout: 0 });
    process.stdout.write(`resurrecting from ${data.file}\n`);
    for (const name of data.started) process.stdout.write(`started ${name}\n`);
    for (const name of data.running) process.stdout.write(`${name} is already running\n`);
    const status = printOutcome(data);
    process.stdout.write(`${renderLs(await client.request('ls'))}\n`);
    return status;
  } finally {
    client.close();
  }
}
