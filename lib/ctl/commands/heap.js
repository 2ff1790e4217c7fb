// super heap <app>[#slot] [--out FILE [--force]] [--json]: a heap snapshot of one worker, written by
// the worker straight to the file (never through the daemon), with its heap size before.
import { connectDaemon } from '../session.js';
import { workerTarget } from '../worker-target.js';
import { checkOut, localFiles } from '../capture-output.js';
import { formatBytes } from '../format.js';

const ANSWER_TIMEOUT_MS = 16 * 60_000; // a heap of gigabytes takes minutes (the daemon gives up at 15)

export default async function heap(target, opts = {}) {
  const w = workerTarget(target);
  const force = Boolean(opts.force);
  const out = await checkOut(opts.out);
  const remote = Boolean(process.env.SUPER_HOST);
  const client = await connectDaemon();
  try {
    if (process.stderr.isTTY && !opts.json) process.stderr.write(`taking a heap snapshot of ${target} (the worker pauses while it is written)...\n`);
    const data = await client.request('heap', { app: w.target, slot: w.slot, out: remote ? undefined : out, force }, { timeout: ANSWER_TIMEOUT_MS });
    const [f] = await localFiles(client, data.files, { remote, out, force });
    if (opts.json) process.stdout.write(`${JSON.stringify(f)}\n`);
    else process.stdout.write(`${f.app}#${f.slot} (pid ${f.pid}): heap ${formatBytes(f.heap_used)} before; snapshot ${f.path} (${formatBytes(f.bytes)})\n  open it in Chrome DevTools (Memory tab, Load)\n`);
  } finally {
    client.close();
  }
}
