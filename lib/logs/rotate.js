// Rotation of one log file by rename, never copy + truncate (the way pm2-logrotate loses
// lines, keymetrics/pm2-logrotate #135, #200). Rotated files are numbered (size rotation
// alone) or dated (with log_rotate, as pm2-logrotate users expect):
//
//   shiftChain:  file.(R) dropped, file.(i) -> file.(i+1), file -> file.1
//   moveDated:   api-out.log -> api-out.2026-11-23.log (api-out.2026-11-23.1.log if taken)
//   caller:      opens a new `file`, tells the writers to reopen it
//   finishRotation (after every writer reopened): the rotated file gzipped (compress), or
//                removed (retain 0)
//   pruneRotated: dated files beyond retain, and any rotated file older than retainDays, removed
//
// A writer keeps its descriptor across the rename, so whatever it writes before it reopens
// lands in file.1: nothing is lost by construction. All calls are async (libuv pool):
// nothing here blocks the daemon's event loop.
import fs from 'node:fs';
import fsp from 'node:fs/promises';
import zlib from 'node:zlib';
import { pipeline } from 'node:stream/promises';
import { openSafe } from '../safe-read.js';

const ignoreMissing = (err) => {
  if (err.code !== 'ENOENT') throw err;
};

/**
 * Shifts the chain of rotated files and renames `file` to `file.1`. Only the rotated files
 * that exist are touched (one readdir), so a large retain costs nothing.
 */
export async function shiftChain(file, retain) {
  const keep = Math.max(retain, 1); // file.1 exists until finishRotation, even with retain 0
  const rotated = (await listRotated(file)).numbered.map((p) => {
    const m = /\.(\d+)(\.gz)?$/.exec(p);
    return { path: p, n: Number(m?.[1]), gz: m?.[2] ?? '' }; // listRotated's numbered names all match
  });
  await Promise.all(rotated.filter((r) => r.n >= keep).map((r) => fsp.unlink(r.path).catch(ignoreMissing)));
  // highest first, so each target name is free when its turn comes
  for (const r of rotated.filter((x) => x.n < keep).sort((a, b) => b.n - a.n)) {
    await fsp.rename(r.path, `${file}.${r.n + 1}${r.gz}`).catch(ignoreMissing);
  }
  await fsp.rename(file, `${file}.1`);
}

const pad = (n) => String(n).padStart(2, '0');

/** The date a rotated file is named with (local time): by day, hour or minute. */
export function periodStamp(ms, by) {
  const d = new Date(ms);
  const day = `${d.getFullYear()}-${pad(d.getMonth() + 1)}-${pad(d.getDate())}`;
  if (by === 'day') return day;
  if (by === 'hour') return `${day}_${pad(d.getHours())}`;
  return `${day}_${pad(d.getHours())}-${pad(d.getMinutes())}`;
}

const splitName = (file) => {
  const slash = file.lastIndexOf('/');
  const dot = file.lastIndexOf('.');
  return dot > slash + 1 ? [file.slice(0, dot), file.slice(dot)] : [file, ''];
};

/** Renames `file` to its dated name for `stamp` (the first free one); returns it. */
export async function moveDated(file, stamp) {
  const [stem, ext] = splitName(file);
  for (let n = 0; n < 1000; n++) {
    const target = `${stem}.${stamp}${n ? `.${n}` : ''}${ext}`;
    const taken = await fsp.stat(target).then(() => true, () => fsp.stat(`${target}.gz`).then(() => true, () => false));
    if (!taken) {
      await fsp.rename(file, target);
      return target;
    }
  }
  throw Object.assign(new Error(`every dated name of ${file} for ${stamp} is taken`), { code: 'EEXIST' });
}

/** After the writers reopened: gzip the rotated file (compress) or drop it (retain 0). */
export async function finishRotation(first, { retain, compress }) {
  if (retain === 0) return fsp.unlink(first).catch(ignoreMissing);
  if (!compress) return undefined;
  const source = (await openSafe(first, { follow: false })).createReadStream(); // never through a link put at its name
  await pipeline(source, zlib.createGzip({ level: 6 }), fs.createWriteStream(`${first}.gz`, { mode: 0o640 }));
  return fsp.unlink(first);
}

const escapeRe = (s) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/** Rotated files of `file` (file.N, dated ones, either .gz), for flush. */
export async function rotatedFiles(file) {
  const { numbered, dated } = await listRotated(file);
  return [...numbered, ...dated];
}

async function listRotated(file) {
  const dir = file.slice(0, file.lastIndexOf('/')) || '/';
  const base = file.slice(file.lastIndexOf('/') + 1);
  const [stem, ext] = splitName(base);
  const names = await fsp.readdir(dir).catch(() => []);
  const numbered = new RegExp(`^${escapeRe(base)}\\.\\d+(\\.gz)?$`);
  const dated = new RegExp(`^${escapeRe(stem)}\\.\\d{4}-\\d\\d-\\d\\d(_\\d\\d(-\\d\\d)?)?(\\.\\d+)?${escapeRe(ext)}(\\.gz)?$`);
  const pick = (re) => names.filter((n) => re.test(n)).map((n) => `${dir}/${n}`);
  return { numbered: pick(numbered), dated: pick(dated) };
}

/**
 * Removes the dated rotated files of `file` beyond the `retain` newest, and every rotated
 * file older than `retainDays` (by its modification time, against `now`).
 */
export async function pruneRotated(file, { retain, retainDays }, now) {
  const { numbered, dated } = await listRotated(file);
  const withTimes = async (paths) => (await Promise.all(paths.map(async (p) => ({ p, st: await fsp.stat(p).catch(() => null) }))))
    .filter((f) => f.st).sort((a, b) => b.st.mtimeMs - a.st.mtimeMs);
  const datedNow = await withTimes(dated);
  const present = [...datedNow, ...(await withTimes(numbered))];
  const drop = new Set(datedNow.slice(retain).map((f) => f.p));
  if (retainDays) for (const f of present) if (f.st.mtimeMs < now - retainDays * 86400000) drop.add(f.p);
  await Promise.all([...drop].map((p) => fsp.unlink(p).catch(ignoreMissing)));
  return [...drop];
}
