// Where diagnostics go: $SUPER_HOME/profiles (0700, files 0600), their names, and the
// pruning of stall captures beyond profile_on_stall.keep.
import { createHash } from 'node:crypto';
import fs from 'node:fs/promises';
import path from 'node:path';

const EXTENSION = Object.freeze({ profile: '.cpuprofile', heap: '.heapsnapshot' });
// A name the daemon gave: what `diagnostic-file` may send (no path, no dot file).
const FILE_NAME = /^[A-Za-z0-9_][A-Za-z0-9_.-]{0,200}\.(cpuprofile|heapsnapshot)$/;

/** $SUPER_HOME/profiles, created 0700 if missing. */
export async function profilesDir(home) {
  const dir = path.join(home, 'profiles');
  await fs.mkdir(dir, { recursive: true, mode: 0o700 });
  await fs.chmod(dir, 0o700);
  return dir;
}

/** 2026-11-23T20:15:03.123Z -> 20261123T201503123Z: sortable, no ':' (which scp and Windows dislike). */
const stamp = (ms) => new Date(ms).toISOString().replace(/[-:.]/g, '');

/**
 * The file name of a diagnostic: `<app>-<slot>-<time>.cpuprofile`, `.heapsnapshot`, or
 * `stall-<app>-<slot>-<time>.cpuprofile` for a stall capture.
 */
export function diagnosticName({ kind, app, slot, at, stall = false }) {
  return `${stall ? 'stall-' : ''}${fileSafe(app)}-${slot}-${stamp(at)}${EXTENSION[kind]}`;
}

/**
 * An app name as a part of a file name a client may fetch: as is when made of letters,
 * digits, `_`, `.` and `-`; else (`Billing API`) those kept, the rest `_`, and a hash of
 * the name, so that two names never share their captures.
 */
function fileSafe(app) {
  if (/^[A-Za-z0-9][A-Za-z0-9_.-]*$/.test(app)) return app;
  const hash = createHash('sha256').update(app).digest('hex').slice(0, 8);
  return `${app.replace(/[^A-Za-z0-9_.-]/g, '_').replace(/^[^A-Za-z0-9]/, '_')}_${hash}`;
}

export const isDiagnosticName = (name) => typeof name === 'string' && FILE_NAME.test(name);

/** The stall captures of `app` (any slot) in `names`, oldest first. */
export function stallCapturesOf(names, app) {
  const prefix = `stall-${fileSafe(app)}-`;
  const own = /^\d+-\d{8}T\d{9}Z\.cpuprofile$/; // <slot>-<time>.cpuprofile: not the app "api-2" of "api"
  return names
    .filter((n) => n.startsWith(prefix) && own.test(n.slice(prefix.length)))
    .sort((a, b) => timeOf(a).localeCompare(timeOf(b)));
}
const timeOf = (name) => name.slice(name.lastIndexOf('-') + 1);

/** Removes the stall captures of `app` beyond the `keep` newest; returns the names removed. */
export async function pruneStallCaptures(dir, app, keep) {
  const captures = stallCapturesOf(await fs.readdir(dir), app);
  const old = captures.slice(0, Math.max(0, captures.length - keep));
  await Promise.all(old.map((n) => fs.rm(path.join(dir, n), { force: true })));
  return old;
}

/** Removes what a worker that failed mid-way may have left (<file>.partial). */
export const removePartial = (file) => fs.rm(`${file}.partial`, { force: true });
