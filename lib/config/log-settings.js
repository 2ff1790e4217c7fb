// An app's effective log settings, part of its normalized config (`config.logs`): its own
// keys over the file's `logs:` defaults, with every path resolved. Pure: nothing is created
// or opened here (the daemon checks, then creates, at start: lib/logs/prepare.js).
import path from 'node:path';
import { createRequire } from 'node:module';
import { checkCron } from './cron-check.js';

// CommonJS (the agent shares it) is require()d: importing it from ESM would load Node's
// CommonJS export scanner, ~4 MB of the daemon's memory for as long as it runs.
const require = createRequire(import.meta.url);
const { refusedToken } = require('../logs/date-format.cjs');

/** Rotated files kept when neither log_retain nor logs.retain says. */
const DEFAULT_RETAIN = 5;
/**
 * `super run` (containers): files whose size neither the app nor the file's `logs:` set are
 * capped, so they cannot fill the container's writable layer: 10 MiB, one rotated file kept
 * (at most 20 MiB per file; the output is on stdout anyway).
 */
export const CAPPED = { maxSize: 10 * 1024 * 1024, retain: 1 };

/**
 * @param {object} app  a normalized app (normalize-app.js)
 * @param {{dir?: string|null, max_size?: number|null, retain?: number|null, compress?: boolean}|null|undefined} defaults  the file's `logs:`
 * @param {string} home  SUPER_HOME
 * @param {{capped?: boolean, createFileDirs?: boolean, pm2Names?: boolean}} [o]  capped: CAPPED size and retention
 *   unless said (`super run`); createFileDirs: create the missing directory of a log file (PM2 does);
 *   pm2Names: PM2's default file names (a PM2 file)
 */
export function resolveLogSettings(app, defaults, home, { capped = false, createFileDirs = false, pm2Names = false } = {}) {
  const d = defaults ?? {};
  // PM2's default names: `<name>-out.log`, `<name>-error.log`, the name's characters outside
  // [A-Za-z0-9.-] as `-` (Common.prepareAppConf), so `api.example.com/hawk` names no directory.
  // superd's own: the name as is, but a `/` (`api.example.com/hawk`), which would name a directory.
  const logName = app.name.replace(pm2Names ? /[^a-zA-Z0-9.-]/g : /\//g, '-');
  const dir = d.dir ?? path.join(home, 'logs');
  const maxSize = app.log_max_size ?? d.max_size ?? (capped ? CAPPED.maxSize : null);
  return {
    disabled: app.disable_logs,
    dir,
    // The default directory ($SUPER_HOME/logs) is ours to create; one the user named must exist.
    createDir: !d.dir,
    // A PM2 file's log paths: their missing directories are created, as PM2 does.
    ...(createFileDirs && { createFileDirs: true }),
    out: app.out_file ?? path.join(dir, `${logName}-out.log`),
    err: app.error_file ?? path.join(dir, `${logName}-${pm2Names ? 'error' : 'err'}.log`),
    perSlot: app.merge_logs === false,
    // PM2's per-process names: only a `.log` file gets the number (lib/logs/settings.js)
    ...(pm2Names && { pm2Slots: true }),
    type: app.log_type,
    // log_date_format wins over time: it is the more specific of the two.
    date: app.log_date_format ?? (app.time ? 'ISO' : null),
    maxSize,
    retain: app.log_retain ?? d.retain ?? (capped ? CAPPED.retain : DEFAULT_RETAIN),
    retainDays: app.log_retain_days ?? null,
    // a cron expression; null: by size only
    rotate: app.log_rotate ? (ROTATE_EVERY[app.log_rotate] ?? app.log_rotate) : null,
    // how a rotated file is dated: by day, hour or minute
    dateBy: app.log_rotate ? ({ daily: 'day', hourly: 'hour' }[app.log_rotate] ?? 'minute') : null,
    compress: d.compress ?? false,
  };
}

/** The schedules log_rotate accepts besides a cron expression. */
const ROTATE_EVERY = { daily: '0 0 * * *', hourly: '0 * * * *' };

/**
 * Checks what the schema cannot: the tokens of log_date_format and the schedule of
 * log_rotate. `report(key, message)` records a problem.
 */
export function checkLogKeys(get, report) {
  const fmt = get('log_date_format');
  const refused = typeof fmt === 'string' ? refusedToken(fmt) : null;
  if (refused) report('log_date_format', `token ${refused} is not supported (week numbers and time-zone names need dayjs plugins superd does not load); put literal text in [brackets]`);
  const rotate = get('log_rotate');
  if (typeof rotate === 'string' && !ROTATE_EVERY[rotate]) {
    const bad = checkCron(rotate);
    if (bad) report('log_rotate', `give daily, hourly or a cron expression (${bad}), e.g. "0 3 * * *"`);
  }
}
