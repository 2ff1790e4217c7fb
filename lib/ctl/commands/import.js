// super import pm2 [--pm2-home DIR] [--file ECOSYSTEM] [--out ecosystem.yml] [--force]:
// write a superd ecosystem.yml equivalent to the apps PM2 runs (its dump.pm2) or to a PM2
// ecosystem file, list on stderr what could not be carried over, and check that superd
// loads the result. Works on files only: no daemon, neither PM2's nor superd's, is needed.
import fs from 'node:fs/promises';
import path from 'node:path';
import { SuperError } from '../../errors.js';

export default async function importCommand(from, opts = {}) {
  if (from !== 'pm2') throw new SuperError('E_USAGE', `cannot import from "${from}"; superd imports from: pm2`);
  const toStdout = opts.out === '-';
  const out = path.resolve(toStdout ? 'ecosystem.yml' : opts.out ?? 'ecosystem.yml');
  const { importPm2, importError } = await import('../../pm2/index.js');
  const refuseOverwrite = () => importError(`${out} exists; give another --out, or --force to replace it`);
  if (!toStdout && !opts.force && (await exists(out))) throw refuseOverwrite();

  const { text, source, apps, notes } = await importPm2({ pm2Home: opts.pm2Home, file: opts.file, out });
  for (const n of notes) process.stderr.write(`super: import: ${n}\n`);
  if (toStdout) process.stdout.write(text);
  else {
    try {
      await fs.writeFile(out, text, { flag: opts.force ? 'w' : 'wx' });
    } catch (err) {
      if (err.code === 'EEXIST') throw refuseOverwrite();
      throw importError(`cannot write ${out} (${err.code ?? err.message})`);
    }
    process.stdout.write(`wrote ${out} from ${source}: ${apps.length} app(s): ${apps.map((a) => a.name).join(', ')}\n`);
  }
  await checkLoads(text, out);
  if (!toStdout) process.stdout.write(`next: super start ${path.relative(process.cwd(), out) || out}\n`);
  return 0;
}

/** superd must accept what it wrote; if not (a script gone, a value it refuses), say what to fix. */
async function checkLoads(text, out) {
  const { loadEcosystemText } = await import('../../config/index.js');
  try {
    loadEcosystemText(text, out);
  } catch (err) {
    if (!(err instanceof SuperError)) throw err;
    process.stderr.write(`super: warning: superd does not load this ecosystem as it is (${err.message.replace(/ in .*$/, '')}); fix them before super start:\n`);
    for (const p of err.details?.problems ?? []) process.stderr.write(`  ${p}\n`);
  }
}

async function exists(file) {
  try {
    await fs.lstat(file);
    return true;
  } catch {
    return false;
  }
}
