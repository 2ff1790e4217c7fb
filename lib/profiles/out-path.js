// `--out FILE` of a profile or heap snapshot, shared by the daemon (the worker writes
// there) and the CLI (where a copy fetched over --host goes): its directory must exist,
// and a diagnostic of several workers writes one file per worker; an existing file is
// replaced only with --force.
import fs from 'node:fs/promises';
import path from 'node:path';
import { SuperError } from '../errors.js';

/** FILE for one worker; else FILE with `-<slot>` before its extension (prof.cpuprofile -> prof-1.cpuprofile). */
export function outPath(out, slot, count) {
  if (count === 1) return out;
  const ext = path.extname(out);
  return `${out.slice(0, out.length - ext.length)}-${slot}${ext}`;
}

/** `/x/api-0-....cpuprofile` -> `/x/api-0-....html`: the flame graph the CLI writes beside a profile. */
export const htmlPathOf = (file) => path.join(path.dirname(file), `${path.basename(file, path.extname(file))}.html`);

/** The first of `files` that exists (a link counts), or undefined. */
export async function firstExisting(files) {
  const found = await Promise.all(files.map((f) => fs.lstat(f).then(() => true, () => false)));
  return files[found.indexOf(true)];
}

/** The directory of `out` (absolute), which must exist: nothing is created where the user pointed. */
export async function checkOutDir(out) {
  const dir = path.dirname(out);
  const stat = await fs.stat(dir).catch(() => null);
  if (!stat?.isDirectory()) throw new SuperError('E_USAGE', `--out ${out}: the directory ${dir} does not exist; create it first or give another path`);
  return dir;
}
