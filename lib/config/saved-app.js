// An app config saved in dump.json, turned back into an ecosystem document, so that
// resurrect normalizes it through lib/config like any file (index.js loadSavedApp) when
// its own ecosystem file is gone or no longer valid. A dump written by any earlier
// version comes back in today's shape: no compatibility code is needed past this point.
import { ecosystemSchema } from './schema-check.js';

/**
 * @param {object} saved  a normalized app config as a dump saved it (it may predate keys of today)
 * @returns {{apps: object[], logs?: object}} an ecosystem document with that one app
 */
export function savedAppDocument(saved) {
  const app = {};
  for (const key of Object.keys(ecosystemSchema().$defs.app.properties)) {
    const v = saved[key];
    if (v === undefined || v === null || (Array.isArray(v) && v.length === 0)) continue;
    app[key] = v;
  }
  // Saved before restart_delay_set existed: 0/0 was a file that set neither delay.
  const delaySet = saved.restart_delay_set ?? Boolean(saved.restart_delay || saved.exp_backoff_restart_delay);
  if (!delaySet) {
    delete app.restart_delay;
    delete app.exp_backoff_restart_delay;
  }
  // Objects of bounds come back without their unset (null) figures, as a file leaves them out.
  const rule = (r) => Object.fromEntries(Object.entries(r ?? {}).filter(([, v]) => v !== null));
  if (saved.overload && typeof saved.overload === 'object') app.overload = rule(saved.overload);
  // Autoscaled: its bounds go back into `instances`, its rules without the unset figures.
  if (saved.autoscale && typeof saved.autoscale === 'object') {
    const { min, max, up, down, cooldown } = saved.autoscale;
    app.instances = { min, max };
    app.autoscale = { up: rule(up), down: rule(down), cooldown };
  }
  const doc = { apps: [app] };
  // The log settings it ran with: what the app did not set itself came from the file's `logs:`.
  const logs = saved.logs;
  if (logs && typeof logs === 'object') {
    const fileWide = {};
    if (!logs.createDir && typeof logs.dir === 'string') fileWide.dir = logs.dir;
    if (app.log_max_size === undefined && Number.isFinite(logs.maxSize)) fileWide.max_size = logs.maxSize;
    if (app.log_retain === undefined && Number.isInteger(logs.retain)) fileWide.retain = logs.retain;
    if (logs.compress === true) fileWide.compress = true;
    if (Object.keys(fileWide).length) doc.logs = fileWide;
  }
  return doc;
}
