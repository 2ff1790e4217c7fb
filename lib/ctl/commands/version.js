// super version: the CLI's version, and the daemon's when one answers.
import fs from 'node:fs';
import { request } from '../session.js';

export default async function version() {
  const pkg = JSON.parse(fs.readFileSync(new URL('../../../package.json', import.meta.url), 'utf8'));
  process.stdout.write(`super ${pkg.version} (node ${process.version})\n`);
  try {
    const d = await request('version', {}, { timeout: 3000 });
    process.stdout.write(`daemon ${d.version} (node ${d.node}, protocol ${d.protocol})\n`);
  } catch {
    process.stdout.write('daemon: not running\n');
  }
}
