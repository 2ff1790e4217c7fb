// The saved process list, $SUPER_HOME/dump.json: where it is and how it is read and
// checked. Written only by the daemon (lib/master/saved/dump.js); read by the daemon
// (resurrect) and by the CLI (`super startup` sizes the unit's stop timeout from it).
import fs from 'node:fs/promises';
import path from 'node:path';
import { SuperError } from './errors.js';
import { readFileSafe, READ_BOUNDS, UnsafeFileError } from './safe-read.js';

// host:port, as config/schema.json allows it
const LISTEN_RE = /^(\[[0-9A-Fa-f:.]+\]|[^\s:[\]]+):[0-9]{1,5}$/;

/**
 * @typedef {object} DumpEntry
 * @property {object} config     the app's config as it ran (lib/config's normalized shape;
 *   instances as scaled, watch as turned on or off): the fallback when its file is gone
 * @property {Record<string,string>} clientEnv  environment of the `super start` that added it
 * @property {{file: string, env?: string, cwd?: string}} [source]  the ecosystem file (and --env) it came from, and where `super start` ran
 * @property {number|null} [scaled_from]  the file's instances when a command scaled the app: its
 *   count holds while the file says so (lib/config/autoscale.js keptCount); null: not scaled
 * @property {number} [id]  its numeric id in the daemon that saved it (kept by resurrect when free)
 */

export const DUMP_VERSION = 1;
export const dumpPath = (home) => path.join(home, 'dump.json');
export const bakPath = (home) => `${dumpPath(home)}.bak`;

/**
 * Reads the dump. E_DUMP when it is missing or corrupt; the message names the .bak.
 * @returns {Promise<{file: string, scheduling: string, daemon_cpu_affinity: string|null, metrics: {listen: string|null, interval: number}|null,
 *   control: {listen: string, tls: {cert: string, key: string}|null, origins: string[]}|null, apps: DumpEntry[]}>}
 */
export async function readDump(home) {
  const file = dumpPath(home);
  let text;
  try {
    text = (await readFileSafe(file, { max: READ_BOUNDS.dump, follow: false })).toString('utf8');
  } catch (err) {
    if (err.code === 'ENOENT') throw new SuperError('E_DUMP', `no saved process list at ${file}; run \`super save\` while your apps run`, { missing: true });
    if (err instanceof UnsafeFileError) throw new SuperError('E_DUMP', `cannot read ${file} (${err.code}): ${err.reason}; remove it, or put a dump written by \`super save\` there`);
    throw new SuperError('E_DUMP', `cannot read ${file} (${err.code ?? err.message})`);
  }
  try {
    return { file, ...parseDump(text, file) };
  } catch (err) {
    const bak = bakPath(home);
    const hasBak = await fs.access(bak).then(() => true, () => false);
    const what = hasBak
      ? `the previous dump is ${bak}: \`cp ${bak} ${file}\` then \`super resurrect\` to use it`
      : `there is no previous dump (${bak}); start your apps with \`super start\` and \`super save\` again`;
    throw new SuperError('E_DUMP', `${file} is corrupt (${err.message}); ${what}`);
  }
}

/**
 * E_DUMP when the dump lists more apps than `maxApps` (SUPER_MAX_APPS): checked by the
 * daemon, and by `super resurrect` before it launches one that would refuse it.
 */
export function checkDumpApps(dump, maxApps) {
  if (dump.apps.length <= maxApps) return;
  throw new SuperError('E_DUMP', `${dump.file} lists ${dump.apps.length} apps, more than the limit of ${maxApps}; nothing was started: raise SUPER_MAX_APPS in the daemon's environment, or save fewer apps`);
}

/** Checks the shape (pure; throws Error with a short reason). */
export function parseDump(text, file = 'dump.json') {
  let data;
  try {
    data = JSON.parse(text);
  } catch (err) {
    throw new Error(`not valid JSON: ${err.message}`);
  }
  if (!data || typeof data !== 'object' || Array.isArray(data)) throw new Error('not a JSON object');
  if (data.superd !== DUMP_VERSION) throw new Error(`unknown dump format ${JSON.stringify(data.superd)} (expected ${DUMP_VERSION})`);
  if (!Array.isArray(data.apps)) throw new Error('"apps" is not a list');
  data.apps.forEach((entry, i) => {
    const c = entry?.config;
    const bad = (what) => new Error(`apps[${i}] ${what} in ${path.basename(file)}`);
    if (!c || typeof c !== 'object') throw bad('has no config');
    // A name as the ecosystem schema takes it (`Billing API`): no control or invisible character, no leading `/`.
    if (typeof c.name !== 'string' || !/^(?!\/)[^\p{Cc}\p{Cf}\p{Zl}\p{Zp}]{1,64}$/u.test(c.name)) throw bad('has no valid name');
    if (typeof c.script !== 'string' || !path.isAbsolute(c.script)) throw bad('has no absolute script path');
    if (!Number.isInteger(c.instances) || c.instances < 1) throw bad('has no valid instances');
    if (entry.clientEnv !== undefined && (typeof entry.clientEnv !== 'object' || entry.clientEnv === null)) throw bad('has a bad clientEnv');
  });
  // A CPU list like "0" or "0-1,3"; anything else is ignored (the daemon is left unpinned).
  const cpus = typeof data.daemon_cpu_affinity === 'string' && /^\d+(-\d+)?(,\d+(-\d+)?)*$/.test(data.daemon_cpu_affinity) ? data.daemon_cpu_affinity : null;
  // Metrics settings as config/schema.json allows them; anything else: the daemon's defaults.
  const m = data.metrics;
  const metrics = m && typeof m === 'object' && Number.isFinite(m.interval) && m.interval >= 0
    && (m.listen === null || (typeof m.listen === 'string' && LISTEN_RE.test(m.listen)))
    ? { listen: m.listen, interval: m.interval } : null;
  // A dump of a superd before `auto` says round-robin or os; anything unknown: round-robin, as then.
  const scheduling = ['auto', 'round-robin', 'os', 'reuseport'].includes(data.scheduling) ? data.scheduling : 'round-robin';
  return { scheduling, daemon_cpu_affinity: cpus, metrics, control: savedControl(data.control), apps: data.apps };
}

/** The control listener settings of a dump, as config/schema.json allows them; anything else: none. */
function savedControl(c) {
  if (!c || typeof c !== 'object' || typeof c.listen !== 'string' || !LISTEN_RE.test(c.listen)) return null;
  const tls = c.tls && typeof c.tls === 'object' && [c.tls.cert, c.tls.key].every((p) => typeof p === 'string' && path.isAbsolute(p))
    ? { cert: c.tls.cert, key: c.tls.key } : null;
  if (c.tls && !tls) return null;
  const origins = Array.isArray(c.origins) && c.origins.every((o) => typeof o === 'string') ? c.origins : [];
  return { listen: c.listen, tls, origins };
}
