// Rotation of one log file by rename, never copy + truncate (the way pm2-logrotate loses
// lines, keymetrics/pm2-logrotate #135, #200):
//
//   shiftChain:  file.(R) dropped, file.(i) -> file.(i+1), file -> file.1
//   caller:      opens a new `file`, tells the writers to reopen it
//   finishRotation (after every writer reopened): file.1 gzipped (compress), or removed (retain 0)
//
// A writer keeps its descriptor across the rename, so whatever it writes before it reopens
// lands in file.1: nothing is lost by construction. All calls are async (libuv pool):
// nothing here blocks the daemon's event loop.
import fs from 'node:fs';
import fsp from 'node:fs/promises';
import zlib from 'node:zlib';
import { pipeline } from 'node:stream/promises';

const ignoreMissing = (err) => {
  if (err.code !== 'ENOENT') throw err;
};

/**
 * Shifts the chain of rotated files and renames `file` to `file.1`. Only the rotated files
 * that exist are touched (one readdir), so a large retain costs nothing.
 */
export async function shiftChain(file, retain) {
  const keep = Math.max(retain, 1); // file.1 exists until finishRotation, even with retain 0
  const rotated = (await rotatedFiles(file)).map((p) => {
    const m = /\.(\d+)(\.gz)?$/.exec(p);
    return { path: p, n: Number(m[1]), gz: m[2] ?? '' };
  });
  await Promise.all(rotated.filter((r) => r.n >= keep).map((r) => fsp.unlink(r.path).catch(ignoreMissing)));
  // highest first, so each target name is free when its turn comes
  for (const r of rotated.filter((x) => x.n < keep).sort((a, b) => b.n - a.n)) {
    await fsp.rename(r.path, `${file}.${r.n + 1}${r.gz}`).catch(ignoreMissing);
  }
  await fsp.rename(file, `${file}.1`);
}

/** After the writers reopened: gzip file.1 (compress) or drop it (retain 0). */
export async function finishRotation(file, { retain, compress }) {
  const first = `${file}.1`;
  if (retain === 0) return fsp.unlink(first).catch(ignoreMissing);
  if (!compress) return undefined;
  await pipeline(fs.createReadStream(first), zlib.createGzip({ level: 6 }), fs.createWriteStream(`${first}.gz`, { mode: 0o640 }));
  return fsp.unlink(first);
}

/** Rotated files of `file` (file.N and file.N.gz), for flush. */
export async function rotatedFiles(file) {
  const dir = file.slice(0, file.lastIndexOf('/')) || '/';
  const base = file.slice(file.lastIndexOf('/') + 1);
  const names = await fsp.readdir(dir).catch(() => []);
  const re = new RegExp(`^${base.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}\\.\\d+(\\.gz)?$`);
  return names.filter((n) => re.test(n)).map((n) => `${dir}/${n}`);
}
