// super scale <app> <N|+N|-N> [--json]
import { request } from '../session.js';
import { printOutcome } from '../report.js';
import { SuperError } from '../../errors.js';

export default async function scale(app, count, opts = {}) {
  // Up to 9 digits: the daemon says which bound (SUPER_MAX_INSTANCES) a large count passes.
  if (!/^[+-]?\d{1,9}$/.test(count)) throw new SuperError('E_USAGE', `count must be N, +N or -N, with N a whole number of at most 9 digits (got "${String(count).slice(0, 40)}")`);
  const data = await request('scale', { app, count }, { timeout: 0 });
  process.stdout.write(opts.json ? `${JSON.stringify(data)}\n` : `${data.app}: ${data.from} -> ${data.to} instances${data.holds ? `; ${data.holds}` : ''}\n`);
  return printOutcome(data);
}
