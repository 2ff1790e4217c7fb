// Shared by `super profile`, `super heap` and monit's `p` key: the checks of --out and
// --duration made before the daemon is asked, and where each file ends up on this machine
// (the daemon's own path when local, a copy fetched over --host otherwise).
import path from 'node:path';
import { fetchDiagnostic } from '../profiles/fetch-file.js';
import { outPath, checkOutDir } from '../profiles/out-path.js';

/**
 * `--out FILE` as an absolute path whose directory exists, or undefined. (Whether a file
 * is there is for the daemon to say: it knows how many workers, so which names, are written.)
 */
export async function checkOut(out) {
  if (out === undefined) return undefined;
  const abs = path.resolve(out);
  await checkOutDir(abs);
  return abs;
}

/**
 * The local path of each file of a profile/heap answer: over --host (`remote`), each file
 * is fetched to `out` (per slot) or to its own name in the current directory.
 * @param {object} client  @param {object[]} files
 * @param {{remote: boolean, out?: string, force?: boolean}} o
 */
export async function localFiles(client, files, { remote, out, force = false }) {
  if (!remote) return files;
  const local = [];
  for (const f of files) {
    const dest = out ? outPath(out, f.slot, files.length) : path.resolve(path.basename(f.path));
    await fetchDiagnostic(client, f.path, dest, { force });
    local.push({ ...f, path: dest, daemon_path: f.path });
  }
  return local;
}
