// The face of lib/config: read an ecosystem file, parse it (YAML with js-yaml, JSON,
// or JS/TS run in a child process: js-config.js), check it (config/schema.json, then
// what only code can check), and normalize it into the settings the daemon consumes. A
// PM2 file (pm2-format.js) is first read as PM2 reads it (pm2-reading.js).
// A file with any problem is refused whole, with every problem listed, one line each:
//   `<file>:<line>:<col>: <key path>: <what is wrong>; <what to do>`
// (a JS/TS file's exported object has no positions: `<file>: <key path>: ...`).

import path from 'node:path';
import yaml from 'js-yaml';
import { SuperError } from '../errors.js';
import { readFileSafe, READ_BOUNDS, UnsafeFileError } from '../safe-read.js';
import { normalizeApp } from './normalize-app.js';
import { normalizeDaemon } from './normalize-daemon.js';
import { parseWithPositions, PositionMap } from './positions.js';
import { Problems } from './problems.js';
import { readAllowedCpus } from './cpu-set.js';
import { cgroupCpuLimit, cpuLimitNote } from '../cgroup-cpu.js';
import { evaluateConfigFile, SCRIPT_EXTENSIONS } from './js-config.js';
import { jsonProblem } from './json-problem.js';
import { blankCommentsAndTrailingCommas, parseRelaxedJson } from './json-relaxed.js';
import { pm2OnlyWarnings } from './pm2-keys.js';
import { isPm2Format, takesPm2Defaults } from './pm2-format.js';
import { readAsPm2 } from './pm2-reading.js';
import { schemaProblems } from './schema-check.js';
import { yamlProblem } from './yaml-problem.js';
import { resolveLogSettings } from './log-settings.js';
import { deepFreeze } from './deep-freeze.js';
import { superHome } from '../home.js';
import { savedAppDocument } from './saved-app.js';
import { holdsMoreValues, MAX_VALUES } from './value-count.js';
import { workLimits } from './work-limits.js';
import { keptCount } from './autoscale.js';

export { parseDuration, parseSize } from './units.js';
export { loadEcosystemOffThread, loadSavedAppOffThread, loadEcosystemTextOffThread } from './load-off-thread.js';
export { workLimits } from './work-limits.js';

// YAML 1.2 core types plus merge keys (`<<: *defaults`). Not js-yaml's default
// schema: its timestamps would turn `DEPLOYED: 2024-01-01` into a Date.
const YAML_SCHEMA = yaml.CORE_SCHEMA.extend({ implicit: [yaml.types.merge] });

/**
 * One app as the daemon runs it: the normalized app (normalize-app.js) with its log settings.
 * The one type of an app's config across lib/master.
 * @typedef {import('./normalize-app.js').App & {logs: ReturnType<typeof resolveLogSettings>}} AppConfig
 */

/**
 * @typedef {object} Ecosystem  deeply frozen: a change is a new object
 * @property {string} file  absolute path of the ecosystem file
 * @property {import('./normalize-daemon.js').DaemonSettings} daemon
 * @property {AppConfig[]} apps  in file order (only those named by `only`, if given), each with its log settings
 * @property {string[]} warnings  one line each: keys accepted but ignored (PM2-only keys), ...
 * @property {string|null} cpu_note  why `max` is fewer CPUs than the affinity mask (the cgroup's CPU limit), or null
 */

/**
 * @typedef {object} LoadOptions
 * @property {string} [env]  `--env <name>`: each app's env is `{...env, ...env_<name>}`
 * @property {string[]} [only]  keep only these apps (each must exist in the file)
 * @property {number[]} [allowedCpus]  the CPUs the daemon may use, for `instances` and
 *   `cpu_affinity` (default: 0..cpus-1 when `cpus` is given, else this process's own mask)
 * @property {number} [cpus=allowedCpus.length]  how many CPUs the daemon may use, for `instances`
 * @property {string|null} [noPinning]  why CPU pinning cannot work here (default: detected)
 * @property {boolean} [isRoot]  whether the daemon runs as root, for uid/gid (default: this process)
 * @property {Record<string,string>} [callerEnv]  environment a JS/TS file runs with: the
 *   caller's (`super start`'s), default this process's
 * @property {number} [shutdownDelayDefault=0]  shutdown_delay of an app that sets none, ms (`super run` in Kubernetes: 5 s)
 * @property {boolean} [asPm2]  read with PM2's semantics or not (default: pm2-format.js decides by the file)
 * @property {string} [home]  SUPER_HOME, where default log files go (default: lib/home.js superHome())
 * @property {string} [startDir]  the directory `super start` runs in: a PM2 file's relative
 *   paths start there, as PM2's do (default: the file's directory)
 * @property {boolean} [pm2Defaults=true]  a PM2 file gets PM2's defaults (exec_mode, merge_logs,
 *   readiness, log names: pm2-format.js takesPm2Defaults); false for a file-less app, which has its own
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
  const script = SCRIPT_EXTENSIONS.has(path.extname(file).toLowerCase());
  try {
    // Only a regular file (a device such as /dev/zero never ends, a FIFO would block a
    // thread forever), bounded, read with the rights of whoever controls its path
    // (lib/safe-read.js). A JS/TS file is checked so too, then evaluated in a child.
    text = (await readFileSafe(file, { max: MAX_FILE_BYTES })).toString('utf8');
  } catch (err) {
    throw unreadable(file, err);
  }
  if (!script) return loadEcosystemText(text, file, options);
  const outcome = await evaluateConfigFile(file, { env: options.callerEnv ?? process.env });
  if (outcome.problem) throw new SuperError('E_CONFIG', `1 problem in ${file}`, { problems: [outcome.problem] });
  return loadEcosystemData(outcome.data, undefined, file, options);
}

/** Ecosystem files larger than this are refused unread. */
export const MAX_FILE_BYTES = READ_BOUNDS.ecosystem;

/**
 * Load a YAML or JSON ecosystem file from its text (synchronous; checks files with fs
 * sync calls). JSON (a .json file) is parsed as JSON, so its errors are JSON's.
 * @param {string} text
 * @param {string} file  path of the file, as the user gave it
 * @param {LoadOptions & { baseDir?: string }} [options]  baseDir: where relative paths start
 *   (default: the file's directory)
 * @returns {Ecosystem}
 * @throws {SuperError} E_CONFIG with `details.problems` (string[])
 */
export function loadEcosystemText(text, file, options = {}) {
  text = String(text).replace(/^\uFEFF/, ''); // js-yaml drops a BOM too; drop it first so columns match
  const { data, positions } = path.extname(file).toLowerCase() === '.json' ? parseJson(text, file) : parseYaml(text, file);
  return loadEcosystemData(data, positions, file, options);
}

function parseYaml(text, file) {
  try {
    return parseWithPositions(text, { schema: YAML_SCHEMA, filename: file });
  } catch (err) {
    if (!(err instanceof yaml.YAMLException)) throw err;
    const { line, col, message } = yamlProblem(err);
    throw syntaxError(file, line, col, message);
  }
}

function parseJson(text, file) {
  let data;
  // Comments and trailing commas, which PM2 takes (it reads the file as JavaScript).
  text = blankCommentsAndTrailingCommas(text) ?? text;
  try {
    data = JSON.parse(text);
  } catch {
    // PM2 reads a .json file as a JavaScript expression: unquoted keys, single quotes, ...
    const relaxed = parseRelaxedJson(text);
    if ('error' in relaxed) {
      const { offset, message } = jsonProblem(text);
      const { line, col } = new PositionMap(text).lineCol(offset);
      throw syntaxError(file, line, col, message);
    }
    data = relaxed.value;
  }
  // JSON is YAML: js-yaml finds the positions (of the data JSON.parse read). A file it
  // reads differently (a duplicate key, which JSON lets the last win) has none.
  try {
    return { data, positions: parseWithPositions(text, { schema: YAML_SCHEMA }).positions };
  } catch {
    return { data, positions: undefined };
  }
}

function syntaxError(file, line, col, message) {
  const problems = new Problems(file);
  problems.addAt(line, col, message);
  return refused(file, problems);
}

/**
 * Check and normalize parsed ecosystem data.
 * @param {*} data  parsed, not yet checked
 * @param {import('./positions.js').Positions|undefined} positions  where keys sit in the file, if known
 * @param {string} file
 * @param {LoadOptions & { baseDir?: string, mergeLogsDefault?: boolean, capLogs?: boolean, asPm2?: boolean }} options
 *   asPm2: read with PM2's semantics or not (default: pm2-format.js decides by the file)
 * @returns {Ecosystem}
 */
function loadEcosystemData(data, positions, file, { env, only, allowedCpus, cpus, noPinning, baseDir, startDir, mergeLogsDefault = true, capLogs = false, shutdownDelayDefault = 0, isRoot, home = superHome(), asPm2, pm2Defaults = true } = {}) {
  allowedCpus ??= cpus !== undefined ? Array.from({ length: cpus }, (_, i) => i) : readAllowedCpus();
  // `max` is the affinity mask's CPUs, or the cgroup's CPU limit where that is smaller (a container's).
  let cpuNote = null;
  if (cpus === undefined) {
    const limit = cgroupCpuLimit();
    cpuNote = cpuLimitNote(allowedCpus.length, limit);
    cpus = cpuNote && limit ? limit.cpus : allowedCpus.length;
  }
  const abs = path.resolve(file);
  if (holdsMoreValues(data)) {
    const problems = new Problems(file, positions);
    problems.addGeneral(`holds more than ${MAX_VALUES} values once its YAML aliases (*name) are expanded; an ecosystem file holds at most ${MAX_VALUES}: write the values out, or anchor less`);
    throw refused(file, problems);
  }
  const pm2Format = asPm2 ?? isPm2Format(file, data);
  const pm2Rules = pm2Format && pm2Defaults && takesPm2Defaults(file);
  // PM2 resolves a file's relative paths against the directory `pm2 start` runs in
  // (Common.prepareAppConf: path.resolve(process.cwd(), ...)); superd's own files, against theirs.
  baseDir = path.resolve(baseDir ?? (pm2Rules && startDir ? startDir : path.dirname(abs)));
  /** @type {{notes: import('./pm2-reading.js').Note[], derivedNames: Set<number>, toWritten: ((segments: (string|number)[]) => (string|number)[])|undefined}} */
  let pm2 = { notes: [], derivedNames: new Set(), toWritten: undefined };
  if (pm2Format) ({ data, positions, ...pm2 } = readAsPm2(data, positions, { envName: env }));
  const problems = new Problems(file, positions, pm2.toWritten);
  const limits = workLimits();
  if (Array.isArray(data?.apps) && data.apps.length > limits.apps) {
    problems.add(['apps'], `${data.apps.length} apps is more than the limit of ${limits.apps}; split the file across daemons, or raise SUPER_MAX_APPS in the daemon's environment`);
    throw refused(file, problems);
  }
  for (const p of schemaProblems(data, problems.room)) problems.add(p.segments, p.message, p.which);

  let daemon = null;
  let apps = [];
  const warnings = pm2OnlyWarnings(data, problems);
  for (const { segments, message } of pm2.notes) warnings.push(`${problems.where(segments, 'key')}${problems.label(segments)}: ${message}`);
  if (data && typeof data === 'object' && !Array.isArray(data)) {
    const ctx = { problems, warnings, file: abs, baseDir, cpus, allowedCpus, noPinning, envName: env, mergeLogsDefault, shutdownDelayDefault, isRoot, limits, pm2: pm2Rules };
    daemon = normalizeDaemon(data, ctx);
    if (Array.isArray(data.apps) && !problems.isBad(['apps'])) {
      apps = data.apps.map((raw, i) => normalizeApp(raw, i, ctx));
      checkNames(apps, problems, pm2.derivedNames);
      if (env !== undefined) checkEnvName(env, data.apps, problems);
      if (only !== undefined) apps = keepOnly(apps, only, problems);
    }
  }
  // A file that is not a mapping (no daemon settings) is one of the schema's problems.
  if (problems.size > 0 || daemon === null) throw refused(file, problems);
  apps = apps.map((app) => ({ ...app, logs: resolveLogSettings(app, daemon.logs, home, { capped: capLogs, createFileDirs: pm2Format, pm2Names: pm2Rules }) }));
  return deepFreeze({ file: abs, daemon, apps, warnings, cpu_note: cpuNote });
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
  // A saved config is superd's own shape, whatever file it first came from.
  const app = loadEcosystemText(JSON.stringify(savedAppDocument(saved), null, 2), file, { ...options, env: undefined, only: undefined, asPm2: false }).apps[0];
  return keptCount(app, saved.instances);
}

/**
 * Two apps with the same name cannot be told apart by any command (PM2 runs both under
 * one name; superd refuses, naming the app named after its script).
 */
function checkNames(apps, problems, derivedNames) {
  const first = new Map();
  apps.forEach((app, i) => {
    if (typeof app?.name !== 'string') return;
    const seen = first.get(app.name);
    if (seen === undefined) first.set(app.name, i);
    else {
      const where = apps[seen].source.line ? `${problems.label(['apps', seen])} on line ${apps[seen].source.line}` : problems.label(['apps', seen]);
      const what = derivedNames.has(i) ? `has no name, and "${app.name}" (after its script) is the name of ${where}` : `duplicate name "${app.name}" (${where} has it too)`;
      problems.add(['apps', i, 'name'], `${what}; give each app its own name`);
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
  const n = problems.size;
  return new SuperError('E_CONFIG', `${n} ${n === 1 ? 'problem' : 'problems'} in ${file}`, { problems: problems.list() });
}

function unreadable(file, err) {
  const abs = path.resolve(file);
  const why = err instanceof UnsafeFileError ? {
    ENOTREG: err.what === 'a directory' ? `is a directory: ${abs}; give the ecosystem file inside it`
      : `not a regular file: ${abs} (${err.what}); give the path of an ecosystem file (.yml, .yaml, .json, .js, .cjs, .mjs, .ts, .cts or .mts)`,
    EFBIG: `${abs} ${err.reason.replace('read here', 'an ecosystem file may have')}; give the right file`,
  }[err.code] ?? `${err.reason} (${err.code})` : {
    ENOENT: `no such file: ${abs}; check the path`,
    EACCES: `permission denied: ${abs}; make it readable by this user`,
  }[err.code] ?? `cannot read ${abs} (${err.code ?? err.message}); check the file`;
  const problem = `${file}: cannot read the ecosystem file: ${why}`;
  return new SuperError('E_CONFIG', `1 problem in ${file}`, { problems: [problem] });
}
