// super upgrade [--daemon-path DIR] [--config FILE] [--json]: the running daemon starts a
// successor (the superd on disk now, or at DIR), hands it its listening sockets and apps,
// and retires once the successor's workers are ready. Prints the progress, then waits
// (bounded) until the old daemon has retired its workers and exited.
import path from 'node:path';
import { connectDaemon } from '../session.js';
import { processAlive } from '../../process-alive.js';

const RETIRE_WAIT_MS = 120000;

export default async function upgrade(opts = {}) {
  const args = {};
  if (opts.daemonPath) args.daemonPath = path.resolve(opts.daemonPath);
  if (opts.config) args.config = path.resolve(opts.config);
  const t0 = Date.now();
  const client = await connectDaemon();
  try {
    const closed = /** @type {Promise<void>} */ (new Promise((resolve) => client.onEvent((e) => e.closed && resolve())));
    const say = (text) => !opts.json && process.stdout.write(`${text}\n`);
    const data = await client.request('upgrade', args, { timeout: 0, onProgress: (p) => say(p.text) });
    say(`daemon pid ${data.from} -> pid ${data.to} (superd ${data.version}); retiring the old daemon's workers`);
    await closed;
    for (let i = 0; i * 25 < RETIRE_WAIT_MS && processAlive(data.from); i++) await new Promise((r) => setTimeout(r, 25));
    if (opts.json) process.stdout.write(`${JSON.stringify({ ...data, ms: Date.now() - t0 })}\n`);
    else say(`upgraded in ${((Date.now() - t0) / 1000).toFixed(1)} s`);
    return 0;
  } finally {
    client.close();
  }
}
