// The face of lib/config: read an ecosystem file, parse it (js-yaml), check it
// (config/schema.json, then what only code can check), and normalize it into
// the settings the daemon consumes. A file with any problem is refused whole,
// with every problem listed, one line each:
//   `<file>:<line>:<col>: <key path>: <what is wrong>; <what to do>`

import { readFileSync } from 'node:fs';
import { open, stat } from 'node:fs/promises';
import path from 'node:path';
import yaml from 'js-yaml';
import { SuperError } from '../errors.js';
import { normalizeApp } from './normalize-app.js';
import { normalizeDaemon } from './normalize-daemon.js';
import { parseWithPositions } from './positions.js';
import { formatPath, Problems } from './problems.js';
import { readAllowedCpus } from './cpu-set.js';
import { schemaProblems } from './schema-check.js';
import { yamlProblem } from './yaml-problem.js';
import { resolveLogSettings } from './log-settings.js';
import { deepFreeze } from './deep-freeze.js';
import { superHome } from '../home.js';
import { savedAppDocument } from './saved-app.js';

export { parseDuration, parseSize } from './units.js';
export { resolveInstances } from './instances.js';

// YAML 1.2 core types plus merge keys (`<<: *defaults`). Not js-yaml's default
// schema: its timestamps would turn `DEPLOYED: 2024-01-01` into a Date.
const YAML_SCHEMA = yaml.CORE_SCHEMA.extend({ implicit: [yaml.types.merge] });

/**
 * @typedef {object} Ecosystem  deeply frozen: a change is a new object
 * @property {string} file  absolute path of the ecosystem file
 * @property {import('./normalize-daemon.js').DaemonSettings} daemon
 * @property {(import('./normalize-app.js').App & {logs: ReturnType<typeof resolveLogSettings>})[]} apps
 *   in file order (only those named by `only`, if given), each with its log settings
 */

/**
 * @typedef {object} LoadOptions
 * @property {string} [env]  `--env <name>`: each app's env is `{...env, ...env_<name>}`
 * @property {string[]} [only]  keep only these apps (each must exist in the file)
 * @property {number[]} [allowedCpus]  the CPUs the daemon may use, for `instances` and
 *   `cpu_affinity` (default: 0..cpus-1 when `cpus` is given, else this process's own mask)
 * @property {number} [cpus=allowedCpus.length]  how many CPUs the daemon may use, for `instances`
 * @property {string|null} [noPinning]  why CPU pinning cannot work here (default: detected)
 * @property {string} [home]  SUPER_HOME, where default log files go (default: lib/home.js superHome())
 */

/**
 * Read and load an ecosystem file.
 * @param {string} file  path as the user gave it (used as is in problem lines)
 * @param {LoadOptions} [options]
 * @returns {Promise<Ecosystem>}
 * @throws {SuperError} E_CONFIG with `details.problems` (string[]) when the file is unreadable or invalid
 */
export async function loadEcosystem(file, options = {}) {
  let text;
  try {
    // The daemon reads files that clients name: only a regular file (a device such as
    // /dev/zero never ends, a FIFO blocks a thread-pool thread forever), and never more
    // than any real ecosystem.
    const st = await stat(file);
    if (st.isDirectory()) throw Object.assign(new Error('is a directory'), { code: 'EISDIR' });
    if (!st.isFile()) throw Object.assign(new Error('not a regular file'), { code: 'ENOTREG' });
    if (st.size > MAX_FILE_BYTES) throw Object.assign(new Error('too large'), { code: 'EFBIG', size: st.size });
    text = await readBounded(file, MAX_FILE_BYTES);
  } catch (err) {
    throw unreadable(file, err);
  }
  return loadEcosystemText(text, file, options);
}

/** Ecosystem files larger than this are refused unread. */
export const MAX_FILE_BYTES = 1024 * 1024;

/** The file's text; EFBIG if it holds more than `max` bytes (it may have grown since stat). */
async function readBounded(file, max) {
  const fh = await open(file, 'r');
  try {
    const buf = Buffer.alloc(max + 1);
    let n = 0;
    for (let got = -1; got !== 0 && n <= max;) {
      ({ bytesRead: got } = await fh.read(buf, n, buf.length - n, null));
      n += got;
      if (n === buf.length) throw Object.assign(new Error('too large'), { code: 'EFBIG', size: `at least ${max + 1}` });
    }
    return buf.toString('utf8', 0, n);
  } finally {
    await fh.close();
  }
}

/**
 * Load an ecosystem file from its text (synchronous; checks files with fs sync calls).
 * @param {string} text
 * @param {string} file  path of the file, as the user gave it
 * @param {LoadOptions & { baseDir?: string }} [options]  baseDir: where relative paths start
 *   (default: the file's directory)
 * @returns {Ecosystem}
 * @throws {SuperError} E_CONFIG with `details.problems` (string[])
 */
export function loadEcosystemText(text, file, { env, only, allowedCpus, cpus, noPinning, baseDir, mergeLogsDefault = true, home = superHome() } = {}) {
  allowedCpus ??= cpus !== undefined ? Array.from({ length: cpus }, (_, i) => i) : readAllowedCpus();
  cpus ??= allowedCpus.length;
  const abs = path.resolve(file);
  baseDir = path.resolve(baseDir ?? path.dirname(abs));
  text = String(text).replace(/^\uFEFF/, ''); // js-yaml drops a BOM too; drop it first so columns match

  let parsed;
  try {
    parsed = parseWithPositions(text, { schema: YAML_SCHEMA, filename: file });
  } catch (err) {
    if (!(err instanceof yaml.YAMLException)) throw err;
    const problems = new Problems(file);
    const { line, col, message } = yamlProblem(err);
    problems.addAt(line, col, message);
    throw refused(file, problems);
  }

  const { data, positions } = parsed;
  const problems = new Problems(file, positions);
  for (const p of schemaProblems(data)) problems.add(p.segments, p.message, p.which);

  let daemon = null;
  let apps = [];
  if (data && typeof data === 'object' && !Array.isArray(data)) {
    const ctx = { problems, file: abs, baseDir, cpus, allowedCpus, noPinning, envName: env, mergeLogsDefault };
    daemon = normalizeDaemon(data, ctx);
    if (Array.isArray(data.apps) && !problems.isBad(['apps'])) {
      apps = data.apps.map((raw, i) => normalizeApp(raw, i, ctx));
      checkNames(apps, problems);
      if (env !== undefined) checkEnvName(env, data.apps, problems);
      if (only !== undefined) apps = keepOnly(apps, only, problems);
    }
  }
  if (problems.size > 0) throw refused(file, problems);
  apps = apps.map((app) => ({ ...app, logs: resolveLogSettings(app, daemon.logs, home) }));
  return deepFreeze({ file: abs, daemon, apps });
}

/**
 * An app config a dump saved, normalized again as if a file held it (saved-app.js): the
 * fallback of resurrect when the app's own ecosystem file is gone or no longer valid.
 * @param {object} saved  the saved config
 * @param {string} file  the dump, named in problems
 * @param {LoadOptions} [options]
 * @returns {object} the app's normalized, frozen config
 * @throws {SuperError} E_CONFIG when the snapshot is not valid today (its script is gone, ...)
 */
export function loadSavedApp(saved, file, options = {}) {
  return loadEcosystemText(JSON.stringify(savedAppDocument(saved), null, 2), file, { ...options, env: undefined, only: undefined }).apps[0];
}

/** Two apps with the same name cannot be told apart by any command. */
function checkNames(apps, problems) {
  const first = new Map();
  apps.forEach((app, i) => {
    if (typeof app?.name !== 'string') return;
    const seen = first.get(app.name);
    if (seen === undefined) first.set(app.name, i);
    else {
      const where = `${formatPath(['apps', seen])} on line ${apps[seen].source.line}`;
      problems.add(['apps', i, 'name'], `duplicate name "${app.name}" (${where} has it too); give each app its own name`);
    }
  });
}

/** `--env staging` where no app has env_staging is almost surely a typo: do not run with the wrong env. */
function checkEnvName(env, rawApps, problems) {
  const defined = new Set();
  for (const raw of rawApps) {
    for (const key of Object.keys(raw && typeof raw === 'object' ? raw : {})) {
      if (key.startsWith('env_')) defined.add(key.slice(4));
    }
  }
  if (defined.has(env)) return;
  const names = [...defined];
  const todo = names.length ? `this file defines: ${names.join(', ')}` : 'add env_' + env + ' to an app, or drop --env';
  problems.addGeneral(`--env ${env}: no app has env_${env}; ${todo}`);
}

function keepOnly(apps, only, problems) {
  const names = apps.map((a) => a?.name).filter((n) => typeof n === 'string');
  for (const name of only) {
    if (!names.includes(name)) problems.addGeneral(`--only ${name}: not in this file; apps are: ${names.join(', ')}`);
  }
  return apps.filter((a) => only.includes(a?.name));
}

function refused(file, problems) {
  const list = problems.list();
  return new SuperError('E_CONFIG', `${list.length} ${list.length === 1 ? 'problem' : 'problems'} in ${file}`, { problems: list });
}

function unreadable(file, err) {
  const abs = path.resolve(file);
  const why = {
    ENOENT: `no such file: ${abs}; check the path`,
    EISDIR: `is a directory: ${abs}; give the ecosystem file inside it`,
    EACCES: `permission denied: ${abs}; make it readable by this user`,
    ENOTREG: `not a regular file: ${abs}; give the path of an ecosystem file (.yml, .yaml or .json)`,
    EFBIG: `${abs} is ${err.size} bytes, more than the ${MAX_FILE_BYTES} an ecosystem file may have; give the right file`,
  }[err.code] ?? `cannot read ${abs} (${err.code ?? err.message}); check the file`;
  const problem = `${file}: cannot read the ecosystem file: ${why}`;
  return new SuperError('E_CONFIG', `1 problem in ${file}`, { problems: [problem] });
}
