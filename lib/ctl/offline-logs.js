// `super logs` with no daemon (after `super kill`, before a reboot's resurrect): the log
// files are still on disk. Which files: those of the apps in the saved list (dump.json:
// each app's log settings as it ran, custom paths included), else the files superd names
// by default in $SUPER_HOME/logs (<app>-out.log, <app>-err.log, <app>-out-<slot>.log).
import fsp from 'node:fs/promises';
import path from 'node:path';
import { readDump } from '../dump-file.js';
import { appFiles } from '../logs/settings.js';
import { timeReader } from '../logs/tail.js';

const DEFAULT_NAME = /^(.+)-(out|err)(?:-(\d+))?\.log$/;

/**
 * @param {string} home  SUPER_HOME
 * @param {string} target  all, an app name, a namespace, or an id (its place in the saved list)
 * @param {'out'|'err'} [stream]
 * @returns {Promise<{from: string, files: {app: string, slot: number|null, stream: string, path: string}[],
 *   timeOf: (f: {app: string}) => ((line: string) => number|null)|null}>}  from: where the files were found
 */
export async function offlineLogFiles(home, target, stream) {
  const saved = await savedApps(home);
  const apps = saved.filter((c, i) => target === 'all' || c.name === target || c.namespace === target || String(i) === target);
  let files;
  let from;
  const readers = new Map();
  if (apps.length) {
    from = 'the saved list (dump.json)';
    files = apps.flatMap((c) => {
      readers.set(c.name, timeReader(c.logs));
      return appFiles(c.logs, Array.from({ length: c.instances }, (_, s) => s)).map((f) => ({ ...f, app: c.name }));
    });
  } else {
    const dir = path.join(home, 'logs');
    from = dir;
    const names = (await fsp.readdir(dir).catch(() => [])).sort();
    files = names.flatMap((n) => {
      const m = DEFAULT_NAME.exec(n);
      if (!m || (target !== 'all' && m[1] !== target)) return [];
      return [{ app: m[1], slot: m[3] === undefined ? null : Number(m[3]), stream: m[2], path: path.join(dir, n) }];
    });
  }
  if (stream) files = files.filter((f) => f.stream === stream);
  return { from, files, timeOf: (f) => readers.get(f.app) ?? null };
}

/** The configs of the saved apps, or [] when there is no readable dump. */
async function savedApps(home) {
  try {
    const dump = await readDump(home);
    return dump.apps.map((e) => e.config).filter((c) => c && typeof c.name === 'string' && c.logs && typeof c.logs === 'object');
  } catch {
    return [];
  }
}
