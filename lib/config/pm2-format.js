// Which ecosystem files superd reads with PM2's semantics (pm2-reading.js), and PM2's
// names for a key (its table of keys is pm2-keys.js).
//
// The rule: a .js/.cjs/.mjs/.ts/.cts/.mts or .json file is PM2's format (PM2 reads those);
// so is a YAML file, unless it uses a key only superd has (`ready_on`, `logs:`, ...):
// a file that does was written for superd, and is read with superd's own strictness.

import path from 'node:path';
import { ecosystemSchema } from './schema-check.js';
import { PM2_ALIASES, PM2_KEYS, PM2_TOP_KEYS } from './pm2-keys.js';

/** `max_memory_restart` -> `maxMemoryRestart`, as PM2 derives it (a part of one letter stays lower case). */
export const camelCase = (key) => key.split('_').map((n, i) => (i !== 0 && n.length > 1 ? n[0].toUpperCase() + n.slice(1) : n)).join('');

/** Every name PM2 takes for the key `key`, in its order of precedence. */
export const pm2Names = (key) => [...new Set([key, ...(PM2_ALIASES[key] ?? []), camelCase(key)])];

const SCHEMA = ecosystemSchema();
const PM2_APP_NAMES = new Set(PM2_KEYS.flatMap(pm2Names));
/** App keys only superd has (ready_on, probation, ...), and top-level ones (logs, control, ...). */
const SUPERD_ONLY = {
  app: new Set(Object.keys(SCHEMA.$defs.app.properties).filter((k) => !PM2_APP_NAMES.has(k))),
  top: new Set(Object.keys(SCHEMA.properties).filter((k) => !Object.hasOwn(PM2_TOP_KEYS, k))),
};

/**
 * Whether to read this file with PM2's semantics.
 * @param {string} file
 * @param {unknown} data  the parsed file
 * @returns {boolean}
 */
export function isPm2Format(file, data) {
  if (!/^\.ya?ml$/i.test(path.extname(file))) return true;
  return !usesSuperdKey(data);
}

/**
 * Whether a PM2 file also gets PM2's defaults where superd's own differ (exec_mode without
 * instances, readiness, log names and merging, relative paths from where `super start`
 * runs): the formats PM2's own tools write (`pm2 init`: .js, .json). A YAML file, PM2's or
 * superd's (the two cannot be told apart when it uses only shared keys), keeps superd's
 * defaults: cluster mode and zero-downtime reloads for a Node script.
 * @param {string} file
 */
export const takesPm2Defaults = (file) => !/^\.ya?ml$/i.test(path.extname(file));

function usesSuperdKey(data) {
  if (isMap(data) && Object.keys(data).some((k) => SUPERD_ONLY.top.has(k))) return true;
  // The apps in any shape PM2 takes: a list, `apps:` as a list or one app, the file as one app.
  const apps = Array.isArray(data) ? data : isMap(data) ? [data, ...[].concat(data.apps ?? [])] : [];
  return apps.some((app) => isMap(app) && Object.keys(app).some((k) => SUPERD_ONLY.app.has(k)));
}

export const isMap = (v) => v !== null && typeof v === 'object' && !Array.isArray(v);
