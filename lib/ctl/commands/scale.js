// super scale <app> <N|+N|-N> [--json]
import { request } from '../session.js';
import { printOutcome } from '../report.js';
import { SuperError } from '../../errors.js';

export default async function scale(app, count, opts = {}) {
  if (!/^[+-]?\d{1,4}$/.test(count)) throw new SuperError('E_USAGE', `count must be N, +N or -N (got "${count}")`);
  const data = await request('scale', { app, count }, { timeout: 0 });
  process.stdout.write(opts.json ? `${JSON.stringify(data)}\n` : `${data.app}: ${data.from} -> ${data.to} instances\n`);
  return printOutcome(data);
}
