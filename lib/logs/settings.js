// An app's effective log settings: its own keys over the file's `logs:` defaults, with
// every path resolved, so the rest of lib/logs never looks at raw config keys.
import path from 'node:path';

/** Rotated files kept when neither log_retain nor logs.retain says. */
export const DEFAULT_RETAIN = 5;

/**
 * @param {object} app  a normalized app (lib/config/normalize-app.js)
 * @param {{dir: string|null, max_size: number|null, retain: number|null, compress: boolean}} [defaults]  the file's `logs:`
 * @param {string} home  SUPER_HOME
 */
export function resolveLogSettings(app, defaults, home) {
  const d = defaults ?? {};
  const dir = d.dir ?? path.join(home, 'logs');
  const maxSize = app.log_max_size ?? d.max_size ?? null;
  return {
    disabled: app.disable_logs,
    dir,
    // The default directory ($SUPER_HOME/logs) is ours to create; one the user named must exist.
    createDir: !d.dir,
    out: app.out_file ?? path.join(dir, `${app.name}-out.log`),
    err: app.error_file ?? path.join(dir, `${app.name}-err.log`),
    perSlot: app.merge_logs === false,
    type: app.log_type,
    // log_date_format wins over time: it is the more specific of the two.
    date: app.log_date_format ?? (app.time ? 'ISO' : null),
    maxSize,
    retain: app.log_retain ?? d.retain ?? DEFAULT_RETAIN,
    compress: d.compress ?? false,
  };
}

/** `api-out.log` -> `api-out-2.log` for slot 2 of an app with merge_logs: false. */
export function slotPath(file, slot) {
  const ext = path.extname(file);
  return `${file.slice(0, file.length - ext.length)}-${slot}${ext}`;
}

/** The files an app's slot writes to: {out, err} (the same path when out_file = error_file). */
export function slotFiles(settings, slot) {
  if (!settings.perSlot) return { out: settings.out, err: settings.err };
  return { out: slotPath(settings.out, slot), err: settings.err === settings.out ? slotPath(settings.out, slot) : slotPath(settings.err, slot) };
}

/** Every (stream, slot, path) an app writes to, for tail, follow and flush. slot null = all slots. */
export function appFiles(settings, slots) {
  if (settings.disabled) return [];
  const out = [];
  const seen = new Set();
  const add = (stream, slot, file) => {
    if (seen.has(file)) return;
    seen.add(file);
    out.push({ stream, slot, path: file });
  };
  if (!settings.perSlot) {
    add('out', null, settings.out);
    add('err', null, settings.err);
    return out;
  }
  for (const s of slots) {
    const f = slotFiles(settings, s);
    add('out', s, f.out);
    add('err', s, f.err);
  }
  return out;
}
