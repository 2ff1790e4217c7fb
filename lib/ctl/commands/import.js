// super import pm2 [--pm2-home DIR] [--file ECOSYSTEM] [--out ecosystem.yml] [--force]:
// write a superd ecosystem.yml equivalent to the apps PM2 runs (its dump.pm2) or to a PM2
// ecosystem file, list on stderr what could not be carried over, and check that superd
// loads the result. Works on files only: no daemon, neither PM2's nor superd's, is needed.
// What it prints comes from the files read (names, keys, messages): control characters
// in it are shown escaped (lib/printable.js).
import { constants } from 'node:fs';
import fs from 'node:fs/promises';
import path from 'node:path';
import { randomBytes } from 'node:crypto';
import { SuperError } from '../../errors.js';
import { printable, printableError } from '../../printable.js';
import { refuseUnreplaceable } from '../../replaceable.js';

export default async function importCommand(from, opts = {}) {
  try {
    return await importFrom(from, opts);
  } catch (err) {
    throw printableError(err);
  }
}

async function importFrom(from, opts) {
  if (from !== 'pm2') throw new SuperError('E_USAGE', `cannot import from "${from}"; superd imports from: pm2`);
  const toStdout = opts.out === '-';
  const out = path.resolve(toStdout ? 'ecosystem.yml' : opts.out ?? 'ecosystem.yml');
  const { importPm2, importError } = await import('../../pm2/index.js');
  const refuseOverwrite = () => importError(`${out} exists; give another --out, or --force to replace it`);
  if (!toStdout && !opts.force && (await exists(out))) throw refuseOverwrite();
  if (!toStdout && opts.force) refuseUnreplaceable(out, importError);

  const { text, source, apps, notes } = await importPm2({ pm2Home: opts.pm2Home, file: opts.file, out });
  for (const n of notes) process.stderr.write(`super: import: ${printable(n)}\n`);
  if (toStdout) process.stdout.write(text);
  else {
    try {
      await writeOut(out, text, opts.force, importError);
    } catch (err) {
      if (err.code === 'EEXIST') throw refuseOverwrite();
      if (err instanceof SuperError) throw err;
      throw importError(`cannot write ${out} (${err.code ?? err.message})`);
    }
    process.stdout.write(printable(`wrote ${out} from ${source}: ${apps.length} app(s): ${apps.map((a) => a.name).join(', ')}`) + '\n');
  }
  await checkLoads(text, out);
  if (!toStdout) process.stdout.write(printable(`next: super start ${path.relative(process.cwd(), out) || out}`) + '\n');
  return 0;
}

/**
 * The whole file appears at once, and never through a link: written to a new file of its
 * own (O_EXCL|O_NOFOLLOW, in the target's directory), then moved into place. Without
 * `force`, link() fails if anything, a dangling symlink included, holds the name; with it,
 * rename() replaces the name itself, and only a regular file (never a device such as
 * /dev/null, a directory or a link: refused).
 */
async function writeOut(out, text, force, importError) {
  const tmp = path.join(path.dirname(out), `.${path.basename(out)}.${randomBytes(6).toString('hex')}.tmp`);
  // 0600, as superd's own dump: the env values PM2 held (passwords, API keys) are in it.
  const fh = await fs.open(tmp, constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | constants.O_NOFOLLOW, 0o600);
  try {
    try {
      // A file replaced keeps its permissions (it may hold secrets: env values).
      const replaced = force ? await fs.lstat(out).catch(() => null) : null;
      if (replaced?.isFile()) await fh.chmod(replaced.mode & 0o7777);
      await fh.writeFile(text);
    } finally {
      await fh.close();
    }
    if (force) {
      refuseUnreplaceable(out, importError); // again: it may have changed meanwhile
      await fs.rename(tmp, out);
    }
    else await fs.link(tmp, out);
  } finally {
    await fs.rm(tmp, { force: true });
  }
}

/** superd must accept what it wrote; if not (a script gone, a value it refuses), say what to fix. */
async function checkLoads(text, out) {
  const { loadEcosystemText } = await import('../../config/index.js');
  try {
    loadEcosystemText(text, out);
  } catch (err) {
    if (!(err instanceof SuperError)) throw err;
    process.stderr.write(`super: warning: superd does not load this ecosystem as it is (${printable(err.message.replace(/ in .*$/, ''))}); fix them before super start:\n`);
    for (const p of err.details?.problems ?? []) process.stderr.write(`  ${printable(p)}\n`);
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
