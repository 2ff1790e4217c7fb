// super env <app>[#slot] [slot] [--json]: the environment a worker runs with, secrets masked.
import { request } from '../session.js';
import { SuperError } from '../../errors.js';
import { workerTarget } from '../worker-target.js';

export default async function env(app, slot, opts = {}) {
  const w = workerTarget(app);
  if (slot !== undefined) {
    if (!/^\d{1,4}$/.test(slot) || w.slot !== undefined) throw new SuperError('E_USAGE', `slot must be a number, given once (got "${slot}")`);
    w.slot = Number(slot);
  }
  const data = await request('env', { app: w.target, slot: w.slot });
  if (opts.json) {
    process.stdout.write(`${JSON.stringify(data)}\n`);
    return;
  }
  const lines = Object.entries(data.env).map(([k, v]) => `${k}=${v}`);
  process.stdout.write(`${lines.join('\n')}\n`);
}
