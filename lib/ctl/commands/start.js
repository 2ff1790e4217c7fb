// super start <file> [--env name] [--only a,b] [--watch]
import path from 'node:path';
import { loadEcosystem } from '../../config/index.js';
import { superHome } from '../../home.js';
import { ensureDaemon } from '../launch-daemon.js';
import { printOutcome } from '../report.js';
import { renderLs } from '../render-ls.js';

export default async function start(file, opts) {
  const abs = path.resolve(file);
  const only = opts.only ? opts.only.split(',').map((s) => s.trim()).filter(Boolean) : undefined;
  // Refuse a bad file here, before a daemon is even started (the daemon checks again,
  // against the CPUs it may use). CPUs: this process's own mask, which a new daemon inherits.
  await loadEcosystem(file, { env: opts.env, only });
  const client = await ensureDaemon(superHome());
  try {
    const clientEnv = Object.fromEntries(Object.entries(process.env).filter(([, v]) => typeof v === 'string'));
    const data = await client.request('start', { file: abs, env: opts.env, only, clientEnv, watch: opts.watch || undefined }, { timeout: 0 });
    for (const name of data.started) process.stdout.write(`started ${name}\n`);
    for (const name of data.running) {
      const changed = data.changed.find((c) => c.name === name);
      process.stdout.write(changed
        ? `${name} is already running; its config changed (${changed.keys.join(', ')}): apply it with \`super reload ${name}\`\n`
        : `${name} is already running; use \`super reload ${name}\` to reload it\n`);
    }
    const status = printOutcome(data);
    process.stdout.write(`${renderLs(await client.request('ls'))}\n`);
    return status;
  } finally {
    client.close();
  }
}
