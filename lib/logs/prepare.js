// Log settings for the apps of an ecosystem file, checked before anything starts: an
// unwritable or missing log directory refuses the whole `start` (E_LOG_PATH, exit 2),
// naming the path, instead of starting workers whose output would go nowhere.
import fs from 'node:fs/promises';
import path from 'node:path';
import { SuperError } from '../errors.js';
import { resolveLogSettings, slotFiles } from './settings.js';
import { setDaemonLogRotation } from './daemon-log.js';

/**
 * Attaches `logs` (resolved settings) to each app config and checks every file can be
 * opened for appending. Resolves, or rejects with E_LOG_PATH.
 * @param {object[]} apps  normalized app configs
 * @param {object} [defaults]  the file's `logs:` block (lib/config normalize-daemon);
 *   absent for configs from a saved dump, which keep the settings they were saved with
 * @param {string} home
 */
export async function prepareLogs(apps, defaults, home) {
  if (defaults) setDaemonLogRotation(defaults);
  const problems = [];
  await Promise.all(apps.map(async (app) => {
    if (defaults || !app.logs) app.logs = resolveLogSettings(app, defaults, home);
    if (app.logs.disabled) return;
    if (app.logs.createDir) await fs.mkdir(app.logs.dir, { recursive: true }).catch(() => {});
    const files = new Set();
    for (let i = 0; i < app.instances; i++) {
      const f = slotFiles(app.logs, i);
      files.add(f.out).add(f.err);
      if (!app.logs.perSlot) break;
    }
    for (const file of files) {
      const why = await cannotAppend(file);
      if (why) problems.push(`${app.name}: cannot write log file ${file}: ${why}`);
    }
  }));
  if (problems.length) {
    throw new SuperError('E_LOG_PATH', problems.length === 1 ? problems[0] : `${problems.length} log files cannot be written; nothing was started`, problems.length > 1 ? { problems } : undefined);
  }
}

/** Why `file` cannot be opened for appending (a reason naming the directory), or null. */
async function cannotAppend(file) {
  const dir = path.dirname(file);
  try {
    const fh = await fs.open(file, 'a', 0o640);
    await fh.close();
    return null;
  } catch (err) {
    if (err.code === 'ENOENT') return `directory ${dir} does not exist; create it or fix the path`;
    if (err.code === 'ENOTDIR') return `${dir} is not a directory`;
    if (err.code === 'EACCES' || err.code === 'EPERM' || err.code === 'EROFS') return `${err.code}: ${dir} is not writable by the daemon (uid ${process.getuid?.()})`;
    if (err.code === 'EISDIR') return 'it is a directory; give a file path';
    return err.code ?? err.message;
  }
}
