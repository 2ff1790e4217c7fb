// The saved process list, $SUPER_HOME/dump.json: written here by `super save`; read by
// `super resurrect` and `super daemon --resurrect` through lib/dump-file.js, which the CLI
// shares.
//
// Write sequence (a crash at any point leaves a complete dump.json, old or new):
//   dump.json.<pid>-<n>.tmp  <- write, fsync (a name of its own: saves never share a temp file)
//   dump.json.bak  <- hard link to the current dump.json, if it is a good dump
//   dump.json      <- rename(the temp file)   atomic replace
//   fsync(SUPER_HOME)                          the rename itself survives a power cut
// A corrupt or unreadable dump.json is never rotated over dump.json.bak (the .bak may be
// the only good copy left): it is moved aside as dump.json.corrupt-<time> instead.
//
// Only an explicit `save` writes: a daemon that stops or dies never touches the dump, and
// saving an empty list over a dump that has apps needs `--force` (PM2 #2653, #2827). So
// does saving one over a corrupt dump: it may have listed apps (a user who saves after
// every app stopped expects their saved list to survive, readable or not), and its .bak
// is what `super resurrect`'s message tells them to restore.
// Saves run one at a time (the daemon is the only writer): each sees the one before.
import fs from 'node:fs/promises';
import { constants } from 'node:fs';
import { readFileSafe, READ_BOUNDS } from '../../safe-read.js';
import { SuperError } from '../../errors.js';
import { DUMP_VERSION, bakPath, dumpPath, parseDump } from '../../dump-file.js';

export { bakPath, dumpPath, parseDump, readDump } from '../../dump-file.js';

/**
 * Writes the dump atomically. Refuses to replace a dump that has apps, or a corrupt one,
 * with an empty one unless `force`.
 * @param {string} home
 * @param {{apps: import('../../dump-file.js').DumpEntry[], scheduling: string, daemon_cpu_affinity?: string|null, metrics?: {listen: string|null, interval: number}|null,
 *   control?: {listen: string, tls: {cert: string, key: string}|null, origins: string[]}|null, version: string}} state
 *   daemon_cpu_affinity: the CPU list the daemon pinned itself to (daemon.cpu_affinity), if any;
 *   metrics: the daemon's metrics settings (interval, Prometheus endpoint) in force;
 *   control: the TCP control listener's settings, if one is open
 * @param {{force?: boolean}} [opts]
 * @returns {Promise<{file: string, apps: string[], replaced: number|null, corrupt?: string}>}
 *   replaced: apps in the good dump now in dump.json.bak (null: none was rotated);
 *   corrupt: where a corrupt dump.json was moved aside
 */
export function writeDump(home, state, opts) {
  const run = queue.then(() => write(home, state, opts));
  queue = run.then(() => {}, () => {});
  return run;
}
let queue = Promise.resolve();
let seq = 0;

/** @param {string} home  @param {Parameters<typeof writeDump>[1]} state  @param {{force?: boolean}} [opts] */
async function write(home, { apps, scheduling, daemon_cpu_affinity = null, metrics = null, control = null, version }, { force = false } = {}) {
  const file = dumpPath(home);
  const bak = bakPath(home);
  const previous = await previousDump(file);
  if (apps.length === 0 && !force) {
    if (previous?.apps !== undefined && previous.apps > 0) {
      throw new SuperError('E_DUMP', `no app is running: saving would replace the ${previous.apps} app(s) in ${file} with an empty list; run \`super save --force\` if that is what you want`);
    }
    if (previous?.corrupt) {
      const hasBak = await fs.access(bak).then(() => true, () => false);
      const restore = hasBak ? `; the previous dump is ${bak} (\`cp ${bak} ${file}\` to keep it)` : '';
      throw new SuperError('E_DUMP', `no app is running: saving would replace ${file}, which is corrupt (${previous.corrupt}) and may list apps, with an empty list${restore}; run \`super save --force\` to save the empty list anyway`);
    }
  }
  const body = `${JSON.stringify({ superd: DUMP_VERSION, version, saved_at: new Date().toISOString(), scheduling, daemon_cpu_affinity, metrics, control, apps }, null, 2)}\n`;
  // Unique within this daemon (saves are queued); one left by a dead daemon that had our pid is overwritten.
  const tmp = `${file}.${process.pid}-${++seq}.tmp`;
  try {
    const fh = await fs.open(tmp, constants.O_WRONLY | constants.O_CREAT | constants.O_TRUNC | constants.O_NOFOLLOW, 0o600); // never through a link
    try {
      await fh.writeFile(body);
      await fh.sync();
    } finally {
      await fh.close();
    }
    let corrupt;
    if (previous?.corrupt) {
      // Kept for inspection, and never as the .bak. A crash before the next rename leaves
      // no dump.json (the old one was unusable anyway), the .bak and the complete temp file.
      corrupt = `${file}.corrupt-${new Date().toISOString().replace(/[:.]/g, '-')}`;
      await fs.rename(file, corrupt);
    } else if (previous) {
      await fs.rm(bak, { force: true });
      await fs.link(file, bak).catch(() => fs.copyFile(file, bak));
    }
    await fs.rename(tmp, file);
    await syncDir(home);
    return { file, apps: apps.map((a) => a.config.name), replaced: previous?.corrupt ? null : (previous?.apps ?? null), corrupt };
  } catch (err) {
    await fs.rm(tmp, { force: true });
    throw err;
  }
}

/** The current dump: null if none, {apps: count} if good, {corrupt: reason} if corrupt or unreadable. */
async function previousDump(file) {
  let text;
  try {
    text = (await readFileSafe(file, { max: READ_BOUNDS.dump, follow: false })).toString('utf8');
  } catch (err) {
    if (err.code === 'ENOENT') return null;
    return { corrupt: `cannot read it: ${err.code ?? err.message}${err.reason ? `: ${err.reason}` : ''}` };
  }
  try {
    return { apps: parseDump(text, file).apps.length };
  } catch (err) {
    return { corrupt: err.message };
  }
}

async function syncDir(dir) {
  const dh = await fs.open(dir, 'r');
  try {
    await dh.sync();
  } finally {
    await dh.close();
  }
}
