// An app's effective log settings, part of its normalized config (`config.logs`): its own
// keys over the file's `logs:` defaults, with every path resolved. Pure: nothing is created
// or opened here (the daemon checks, then creates, at start: lib/logs/prepare.js).
import path from 'node:path';

/** Rotated files kept when neither log_retain nor logs.retain says. */
export const DEFAULT_RETAIN = 5;

/**
 * @param {object} app  a normalized app (normalize-app.js)
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
