// super signal <SIG> <targets...> (alias sendSignal): sends a signal to the workers of
// the apps, or to one worker with app#slot.
import { request } from '../session.js';
import { SuperError } from '../../errors.js';
import { toTargets } from '../targets.js';
import { workerTarget } from '../worker-target.js';

export default async function signal(sig, targets, opts = {}) {
  const parsed = targets.map(workerTarget);
  const withSlot = parsed.filter((p) => p.slot !== undefined);
  if (withSlot.length && parsed.length > 1) throw new SuperError('E_USAGE', 'app#slot names one worker: give it alone');
  const args = { signal: sig, target: toTargets(parsed.map((p) => p.target)) };
  if (withSlot.length) args.slot = withSlot[0].slot;
  const data = await request('signal', args);
  if (opts.json) process.stdout.write(`${JSON.stringify(data)}\n`);
  else if (!data.sent.length) process.stdout.write(`no running worker to send ${data.signal} to\n`);
  else process.stdout.write(`sent ${data.signal} to ${data.sent.map((s) => `${s.app}#${s.slot} (pid ${s.pid})`).join(', ')}\n`);
}
