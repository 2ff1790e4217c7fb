// A PM2-format file (pm2-format.js) read as PM2 reads it, before superd's own checks:
// the shapes PM2 takes for its app list, its other names for one key (and which one wins
// when two disagree), numbers written as strings, and the name of an app that has none.
// The result is the file in superd's shape; key paths in problems still point into the
// file as written (RemappedPositions). What PM2 itself refuses is left for superd's checks
// to refuse, at the key.

import path from 'node:path';
import { ecosystemSchema } from './schema-check.js';
import { isMap, pm2Names } from './pm2-format.js';
import { PM2_ALIASES, PM2_KEYS, PM2_NUMBER_KEYS } from './pm2-keys.js';
import check from './schema-validator.generated.js';

const SCHEMA = ecosystemSchema();
const SUPERD_APP_KEYS = new Set(Object.keys(SCHEMA.$defs.app.properties));
const SUPERD_TOP_KEYS = new Set(Object.keys(SCHEMA.properties));
const NUMBER = /^\s*-?\d+(\.\d+)?\s*$/;
const WHOLE = /^\s*-?\d+\s*$/;

/**
 * @typedef {object} Note  a warning line, once positions are known
 * @property {(string|number)[]} segments  key path in superd's shape
 * @property {string} message
 */

/**
 * @param {unknown} data  the parsed file
 * @param {import('./positions.js').Positions|undefined} positions
 * @param {{ envName?: string }} [o]  envName: `--env <name>`
 * @returns {{ data: unknown, positions: RemappedPositions|undefined, toWritten: (segments: (string|number)[]) => (string|number)[], notes: Note[], derivedNames: Set<number> }}
 *   toWritten: a key path of `data` -> the path as the file writes it; derivedNames: the apps named after their script
 */
export function readAsPm2(data, positions, { envName } = {}) {
  const notes = [];
  const derivedNames = new Set();
  const { shaped, toWritten } = appList(data);
  const renames = new Map();
  if (Array.isArray(shaped?.apps)) {
    shaped.apps = shaped.apps.map((raw, i) => {
      if (!isMap(raw)) return raw;
      const app = { ...raw };
      const here = ['apps', i];
      resolveNames(app, here, notes, renames);
      coerceNumbers(app, here, notes);
      clusterIgnoresInterpreter(app, here, notes);
      unsetFalsy(app, here, notes);
      stringifyEnvObjects(app);
      portWins(app, here, notes);
      discardedLogs(app);
      if (nameAfterScript(app, here, notes)) derivedNames.add(i);
      // PM2 appends the --env name to the app's name when asked (API.js _startJson).
      if (app.append_env_to_name === true && envName !== undefined && typeof app.name === 'string') {
        app.name = `${app.name}-${envName}`;
        delete app.append_env_to_name;
      }
      return app;
    });
  }
  const written = (segs) => toWritten(rename(segs, renames));
  return { data: shaped, positions: positions && new RemappedPositions(positions, written), toWritten: written, notes, derivedNames };
}

/**
 * PM2 takes `apps` (a list, or one app as a mapping), else `pm2`, else the whole file as
 * its app list: a list of apps, or one app (API.js _startJson). -> the file with an `apps`
 * list, and the map from a key path of it back to the path as written.
 */
function appList(data) {
  const same = (segs) => segs;
  const listOf = (key) => (segs) => (segs[0] === 'apps' ? [key, ...segs.slice(1)] : segs);
  const oneOf = (key) => (segs) => (segs[0] === 'apps' ? [...key, ...segs.slice(2)] : segs);
  if (Array.isArray(data)) return { shaped: { apps: data }, toWritten: (segs) => (segs[0] === 'apps' ? segs.slice(1) : segs) };
  if (!isMap(data)) return { shaped: data, toWritten: same };
  const key = data.apps !== undefined ? 'apps' : data.pm2 !== undefined ? 'pm2' : null;
  if (key) {
    const { [key]: list, ...top } = data;
    if (Array.isArray(list)) return { shaped: { ...top, apps: list }, toWritten: listOf(key) };
    if (isMap(list)) return { shaped: { ...top, apps: [list] }, toWritten: oneOf([key]) };
    return { shaped: data, toWritten: same };
  }
  // One app: it has a script, as PM2 requires (a file with neither apps nor a script is
  // left to superd's checks, whose "did you mean" then still helps with `app:` for `apps:`).
  const entries = Object.entries(data);
  if (!pm2Names('script').some((k) => Object.hasOwn(data, k))) return { shaped: data, toWritten: same };
  const top = Object.fromEntries(entries.filter(([k]) => SUPERD_TOP_KEYS.has(k) || k.startsWith('x-')));
  const app = Object.fromEntries(entries.filter(([k]) => !(SUPERD_TOP_KEYS.has(k) || k.startsWith('x-'))));
  return { shaped: { ...top, apps: [app] }, toWritten: oneOf([]) };
}

/**
 * Two of PM2's names for one key: PM2 takes the first with a truthy value, in its order
 * (pm2-keys.js PM2_APP_KEYS); the others go, with a warning when their value differs.
 * A name superd does not know (`outFile`, `exec`, `cmd`) is renamed to PM2's key.
 */
function resolveNames(app, here, notes, renames) {
  for (const key of PM2_KEYS) {
    const present = pm2Names(key).filter((k) => Object.hasOwn(app, k));
    if (present.length === 0) continue;
    const winner = present.find((k) => app[k]) ?? present[0];
    for (const k of present) {
      if (k === winner) continue;
      if (!sameValue(app[k], app[winner])) notes.push({ segments: [...here, k], message: `ignored: ${winner} is given too, with another value, and PM2 uses ${winner}` });
      delete app[k];
    }
    if (!SUPERD_APP_KEYS.has(winner)) {
      app[key] = app[winner];
      delete app[winner];
      renames.set(JSON.stringify([...here, key]), winner);
    }
  }
}

const sameValue = (a, b) => JSON.stringify(a) === JSON.stringify(b);

/** A key path with a renamed key (`script` for `exec`) -> the key as written. */
function rename(segs, renames) {
  if (segs.length < 3) return segs;
  const written = renames.get(JSON.stringify(segs.slice(0, 3)));
  return written === undefined ? segs : [...segs.slice(0, 2), written, ...segs.slice(3)];
}

/**
 * PM2 reads a false, 0 or empty value of a key that has another name (every key with an
 * `_` has its camelCase one) as not set: Config.validateJSON's `conf[key] ||
 * (conf[key] = json[alias])` replaces it with the other name's value, undefined. superd
 * keeps such a value where its own schema takes it (`merge_logs: false`, `restart_delay: 0`
 * mean what they say), and drops it, with a warning, where it would refuse it
 * (`log_date_format: false`, `out_file: ""`): PM2 runs that file.
 */
function unsetFalsy(app, here, notes) {
  for (const [key, v] of Object.entries(app)) {
    if (v || v === undefined || v === null) continue;
    const canonical = PM2_KEYS.find((k) => pm2Names(k).includes(key)) ?? key;
    if (pm2Names(canonical).length < 2 || schemaTakes(canonical, v)) continue;
    notes.push({ segments: [...here, key], message: `${JSON.stringify(v)} is read as not set, as PM2 reads it: ignored` });
    delete app[key];
  }
}

/** Whether superd's schema takes `value` for app key `key`. */
function schemaTakes(key, value) {
  if (!SUPERD_APP_KEYS.has(key)) return true; // an unknown key: superd's checks speak for it
  check({ apps: [{ name: 'x', script: 'x', [key]: value }] });
  return !(check.errors ?? []).some((e) => e.instancePath === `/apps/0/${key}` || e.instancePath.startsWith(`/apps/0/${key}/`));
}

/**
 * PM2 reads a numeric string as the number where its schema allows a number
 * (Config._valid's "auto parse Number"); `instances` takes a whole number only. A
 * cron_restart of 0 turns cron restarts off (Common.sink.determineCron).
 */
function coerceNumbers(app, here, notes) {
  for (const key of Object.keys(app)) {
    const canonical = PM2_KEYS.find((k) => pm2Names(k).includes(key)) ?? key;
    const v = app[key];
    if (canonical === 'cron_restart' && (v === 0 || v === '0')) {
      notes.push({ segments: [...here, key], message: '0 turns cron restarts off (as in PM2): ignored' });
      delete app[key];
    } else if (PM2_NUMBER_KEYS.has(canonical) && typeof v === 'string' && (canonical === 'instances' ? WHOLE : NUMBER).test(v)) {
      app[key] = Number(v);
    } else if (canonical === 'instances' && typeof v === 'string' && v.trim() !== 'max' && Number.isInteger(parseInt(v, 10))) {
      // `instances: 4,` in YAML is the string "4,": PM2's parseInt reads 4 (Common.verifyConfs).
      app[key] = parseInt(v, 10);
      notes.push({ segments: [...here, key], message: `${JSON.stringify(v)} is read as ${app[key]}, as PM2's parseInt reads it` });
    }
  }
}

/**
 * PM2 runs a cluster worker with Node whatever `interpreter` says (its cluster workers load
 * the script in Node: God.nodeApp), so `interpreter: ./node_modules/.bin/ts-node` with
 * `exec_mode: cluster` runs the script under Node.
 */
function clusterIgnoresInterpreter(app, here, notes) {
  if (!/^cluster(_mode)?$/.test(String(app.exec_mode)) || typeof app.exec_interpreter !== 'string' && typeof app.interpreter !== 'string') return;
  const key = typeof app.interpreter === 'string' ? 'interpreter' : 'exec_interpreter';
  if (/^node(js)?$/.test(path.basename(app[key]))) return;
  notes.push({ segments: [...here, key], message: `ignored in cluster mode, as PM2 ignores it: cluster workers run the script with Node` });
  delete app[key];
}

/** PM2 passes an object in env as its JSON text (Common.mergeEnvironmentVariables). */
function stringifyEnvObjects(app) {
  for (const key of Object.keys(app)) {
    if ((key !== 'env' && !key.startsWith('env_')) || !isMap(app[key])) continue;
    const env = app[key];
    if (!Object.values(env).some((v) => v !== null && typeof v === 'object')) continue;
    app[key] = Object.fromEntries(Object.entries(env).map(([k, v]) => [k, v !== null && typeof v === 'object' ? JSON.stringify(v) : v]));
  }
}

/**
 * PM2 sets PORT from `port` over what env (and env_<name>) say (Common.prepareAppConf,
 * after the env merge); superd's own reading lets env win.
 */
function portWins(app, here, notes) {
  if (typeof app.port !== 'number' || !app.port) return; // PM2: `if (app.port && app.env)`
  for (const key of Object.keys(app)) {
    if ((key !== 'env' && !key.startsWith('env_')) || !isMap(app[key]) || app[key].PORT === undefined) continue;
    if (String(app[key].PORT) !== String(app.port)) notes.push({ segments: [...here, key, 'PORT'], message: `ignored: port ${app.port} sets PORT, as in PM2` });
    app[key] = { ...app[key], PORT: app.port };
  }
}

/** PM2 writes no file for a log path of "NULL" (Common.prepareAppConf): superd's is /dev/null. */
function discardedLogs(app) {
  for (const key of ['out_file', 'error_file', 'log_file', ...(PM2_ALIASES.out_file ?? []), ...(PM2_ALIASES.error_file ?? []), ...(PM2_ALIASES.log_file ?? [])]) {
    if (app[key] === 'NULL') app[key] = '/dev/null';
  }
}

/**
 * No name, or "undefined" (a name computed from an unset variable): PM2 names the app
 * after its script's base name without extension (Common.renderApplicationName).
 * @returns {boolean} whether the app was named here
 */
function nameAfterScript(app, here, notes) {
  const name = app.name;
  if (!(name === undefined || name === null || name === '' || name === 'undefined') || typeof app.script !== 'string' || !app.script) return false;
  let derived = path.basename(app.script);
  const dot = derived.lastIndexOf('.');
  if (dot > 0) derived = derived.slice(0, dot);
  if (!derived) return false;
  app.name = derived;
  const what = name === 'undefined' ? 'name is "undefined" (a variable that is not set?)' : 'no name';
  notes.push({ segments: name === undefined ? here : [...here, 'name'], message: `${what}: named "${derived}" after its script, as PM2 does` });
  return true;
}

/** Positions of the file as written, looked up by key paths of the file in superd's shape. */
class RemappedPositions {
  /**
   * @param {import('./positions.js').Positions} inner
   * @param {(segs: (string|number)[]) => (string|number)[]} toWritten
   */
  constructor(inner, toWritten) {
    this.inner = inner;
    this.toWritten = toWritten;
  }

  /** @param {(string|number)[]} segments  @param {'value'|'key'} [which] */
  locate(segments, which = 'value') {
    return this.inner.locate(this.toWritten(segments), which);
  }
}
