// Where `super import pm2` reads from: PM2's dump ($PM2_HOME/dump.pm2, written by
// `pm2 save`) or a PM2 ecosystem file (JSON, YAML, or JavaScript/TypeScript evaluated in a child
// process). Either way the result is a list of PM2 apps in ecosystem-file form.
import os from 'node:os';
import path from 'node:path';
import yaml from 'js-yaml';
import { SuperError } from '../errors.js';
import { readFileSafe, READ_BOUNDS, UnsafeFileError } from '../safe-read.js';
import { dumpApps, isDump } from './dump-apps.js';
import { PM2_ONLY } from '../config/pm2-keys.js';
import { holdsMoreValues, MAX_VALUES } from '../config/value-count.js';

/**
 * Dumps and ecosystem files larger than this are refused unread (a dump records each
 * process's whole environment: a few KB a process).
 */
const MAX_SOURCE_BYTES = READ_BOUNDS.pm2Source;

const SCRIPT_FILE = /\.[cm]?[jt]s$/;

/** PM2's home: --pm2-home, else $PM2_HOME, else ~/.pm2 (as PM2 decides it). */
const pm2HomeOf = (given) => path.resolve(given ?? process.env.PM2_HOME ?? path.join(os.homedir(), '.pm2'));

/**
 * @param {{ pm2Home?: string, file?: string, here?: object }} opts
 * @returns {Promise<{ source: string, apps: object[], notes: string[], baseDir: string }>}
 *   source: the file read; baseDir: where the apps' relative paths start
 */
export async function readSource({ pm2Home, file, here = process.env }) {
  if (file === undefined) {
    const home = pm2HomeOf(pm2Home);
    const dump = path.join(home, 'dump.pm2');
    const data = bounded(parseJson(await readBounded(dump, missingDump(dump)), dump), dump);
    return { source: dump, baseDir: home, ...fromDump(data, dump, home, here) };
  }
  const abs = path.resolve(file);
  const text = await readBounded(abs, () => `no such file: ${abs}; check the path`);
  const data = bounded(SCRIPT_FILE.test(abs) ? await evaluate(abs) : parseText(text, abs), abs);
  if (isDump(data)) return { source: abs, baseDir: path.dirname(abs), ...fromDump(data, abs, pm2Home ? pm2HomeOf(pm2Home) : path.dirname(abs), here) };
  return { source: abs, baseDir: path.dirname(abs), ...fromEcosystem(data, abs) };
}

function fromDump(data, file, pm2Home, here) {
  if (!Array.isArray(data)) throw importError(`${file} is not a PM2 dump (a JSON list of processes); give the dump.pm2 written by \`pm2 save\``);
  if (data.length === 0) throw importError(`${file} lists no process; start your apps with PM2 and run \`pm2 save\`, or give --file ECOSYSTEM`);
  if (!isDump(data)) throw importError(`${file} is not a PM2 dump: an entry has no pm_exec_path; give the dump.pm2 written by \`pm2 save\``);
  return dumpApps(data, { pm2Home, here });
}

/** PM2 reads `{apps: [...]}`, a list of apps, or a single app. */
function fromEcosystem(data, file) {
  const notes = [];
  let apps;
  if (Array.isArray(data)) apps = data;
  else if (data && typeof data === 'object' && 'apps' in data) {
    apps = Array.isArray(data.apps) ? data.apps : [data.apps];
    for (const key of Object.keys(data)) {
      if (key !== 'apps') notes.push(`${key}: left out: ${PM2_ONLY.top[key] ?? 'not a top-level key of a PM2 ecosystem file'}`);
    }
  } else if (data && typeof data === 'object' && 'script' in data) apps = [data];
  else throw importError(`${file} holds no PM2 apps (expected {apps: [...]}, a list of apps, or one app with a script)`);
  if (apps.length === 0) throw importError(`${file} has an empty apps list`);
  const bad = apps.findIndex((a) => !a || typeof a !== 'object' || Array.isArray(a));
  if (bad !== -1) throw importError(`${file}: apps[${bad}] is not an app (a mapping of keys)`);
  return { apps, notes };
}

/**
 * A YAML alias repeats a node by reference: a few hundred bytes of nested aliases (a
 * "billion laughs") stand for 10^9 values, which every walk that follows (mapping the
 * apps, writing them out) would expand. Refused as `super start` refuses it.
 */
function bounded(data, file) {
  if (holdsMoreValues(data)) throw importError(`${file} holds more than ${MAX_VALUES} values once its YAML aliases (*name) are expanded; an ecosystem file holds at most ${MAX_VALUES}: write the values out, or anchor less`);
  return data;
}

/** The file's text: a regular file (never a FIFO or device, even one swapped in after a check), at most MAX_SOURCE_BYTES. */
async function readBounded(file, whenMissing) {
  try {
    return (await readFileSafe(file, { max: MAX_SOURCE_BYTES })).toString('utf8');
  } catch (err) {
    if (err.code === 'ENOENT') throw importError(typeof whenMissing === 'function' ? whenMissing() : whenMissing);
    if (err instanceof UnsafeFileError && err.code === 'ENOTREG') throw importError(`${file} is not a regular file`);
    if (err instanceof UnsafeFileError && err.code === 'EFBIG') throw importError(`${file} ${err.reason.replace('read here', 'a PM2 dump or ecosystem file may have')}; give the right file`);
    throw importError(`cannot read ${file} (${err.code ?? err.message}${err instanceof UnsafeFileError ? `: ${err.reason}` : ''})`);
  }
}

function missingDump(dump) {
  return () => `no PM2 dump at ${dump}; run \`pm2 save\` (with the PM2_HOME of your apps), or give --pm2-home DIR or --file ECOSYSTEM`;
}

function parseJson(text, file) {
  try {
    return JSON.parse(text);
  } catch (err) {
    const backup = file.endsWith('.pm2') ? `; PM2 keeps the previous one: try --file ${file}.bak` : '';
    throw importError(`${file} is corrupt (not valid JSON: ${err.message})${backup}`);
  }
}

/** JSON first (PM2's own format), then YAML (which also reads JSON with comments and trailing commas). */
function parseText(text, file) {
  let jsonError = null;
  if (!/\.ya?ml$/.test(file)) {
    try {
      return JSON.parse(text);
    } catch (err) {
      jsonError = err;
    }
  }
  try {
    return yaml.load(text, { schema: yaml.CORE_SCHEMA, filename: file });
  } catch (err) {
    throw importError(`${file} is not valid ${jsonError ? `JSON (${jsonError.message})` : `YAML (${err.reason ?? err.message} at line ${(err.mark?.line ?? 0) + 1})`}`);
  }
}

/** A JS/TS ecosystem file runs in a short-lived child, as `super start` runs it (lib/config/js-config.js). */
async function evaluate(file) {
  const { evaluateConfigFile } = await import('../config/js-config.js');
  const outcome = await evaluateConfigFile(file);
  if (outcome.problem) throw importError(outcome.problem);
  return outcome.data;
}

export const importError = (message) => new SuperError('E_IMPORT', message);
