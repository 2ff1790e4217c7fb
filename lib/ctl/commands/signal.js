// super signal <SIG> <targets...> (alias sendSignal): sends a signal to the workers of
// the apps, or to one worker with app#slot.
import { request } from '../session.js';
import { workerTargets } from '../worker-target.js';

export default async function signal(sig, targets, opts = {}) {
  const data = await request('signal', { signal: sig, ...workerTargets(targets) });
  if (opts.json) process.stdout.write(`${JSON.stringify(data)}\n`);
  else if (!data.sent.length) process.stdout.write(`no running worker to send ${data.signal} to\n`);
  else process.stdout.write(`sent ${data.signal} to ${data.sent.map((s) => `${s.app}#${s.slot} (pid ${s.pid})`).join(', ')}\n`);
}
