// super resurrect: start the apps saved by `super save` (starts the daemon if none runs).
import { superHome } from '../../home.js';
import { ensureDaemon } from '../launch-daemon.js';
import { printOutcome } from '../report.js';
import { renderLs } from '../render-ls.js';

export default async function resurrect() {
  const client = await ensureDaemon(superHome());
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
