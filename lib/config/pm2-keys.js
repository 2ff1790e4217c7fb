// PM2's names, read from config/schema.json: `x-alias-of` marks another name for a
// superd key (`output` for out_file), `x-pm2-only` a key that only means something to
// PM2's own services (`vizion`, a top-level `deploy`): accepted, warned about, ignored.

import { ecosystemSchema } from './schema-check.js';

const SCHEMA = ecosystemSchema();
const APP = SCHEMA.$defs.app.properties;

/** alias -> the superd key it stands for */
export const ALIASES = Object.freeze(Object.fromEntries(
  Object.entries(APP).filter(([, s]) => s['x-alias-of']).map(([k, s]) => [k, s['x-alias-of']]),
));

/** key -> why superd ignores it, for app keys and top-level keys */
export const PM2_ONLY = Object.freeze({
  app: Object.freeze(Object.fromEntries(Object.entries(APP).filter(([, s]) => s['x-pm2-only']).map(([k, s]) => [k, s['x-pm2-only']]))),
  top: Object.freeze(Object.fromEntries(Object.entries(SCHEMA.properties).filter(([, s]) => s['x-pm2-only']).map(([k, s]) => [k, s['x-pm2-only']]))),
});

/**
 * For one app entry: superd key -> the key the entry writes it with (itself or an alias).
 * Two names for one key (`output` and `out_file`) are a problem (in a file written for
 * superd: a PM2 file's were resolved as PM2 resolves them, pm2-reading.js).
 * @param {Record<string, unknown>} raw
 * @param {(string|number)[]} here  the entry's key path
 * @param {import('./problems.js').Problems} problems
 * @returns {Record<string, string>}
 */
export function writtenKeys(raw, here, problems) {
  const written = {};
  for (const key of Object.keys(raw)) {
    const canonical = ALIASES[key] ?? key;
    if (written[canonical] === undefined) written[canonical] = key;
    else problems.add([...here, key], `says the same as ${written[canonical]} (PM2's other name for ${canonical}); keep one of the two`, 'key');
  }
  return written;
}

/**
 * One warning per PM2-only key in the file.
 * @param {unknown} data  the parsed file
 * @param {import('./problems.js').Problems} problems  for positions
 * @returns {string[]}  `<file>[:line:col]: <key path>: PM2-only key (<why>): ignored`
 */
export function pm2OnlyWarnings(data, problems) {
  if (!data || typeof data !== 'object' || Array.isArray(data)) return [];
  const out = [];
  const warn = (segments, why) => out.push(`${problems.where(segments, 'key')}${problems.label(segments)}: PM2-only key (${why}): ignored`);
  for (const key of Object.keys(data)) if (PM2_ONLY.top[key]) warn([key], PM2_ONLY.top[key]);
  if (!Array.isArray(data.apps)) return out;
  data.apps.forEach((app, i) => {
    if (!app || typeof app !== 'object') return;
    for (const key of Object.keys(app)) if (PM2_ONLY.app[key]) warn(['apps', i, key], PM2_ONLY.app[key]);
  });
  return out;
}
