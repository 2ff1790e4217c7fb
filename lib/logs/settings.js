// The files an app's log settings name. The settings themselves (its own keys over the
// file's `logs:` defaults, every path resolved) are part of the normalized config, derived
// by lib/config/log-settings.js, so lib/logs never looks at raw config keys (and never
// imports lib/config, which uses lib/logs/date-format.cjs).
import path from 'node:path';

/**
 * `api-out.log` -> `api-out-2.log` for slot 2 of an app with merge_logs: false. /dev/null
 * stays itself. PM2's rule for a PM2 file (God.js): only a `.log` file gets the number (an
 * `-N.log` ending is replaced); any other path is shared by the processes.
 */
function slotPath(file, slot, pm2Slots) {
  if (file === '/dev/null') return file;
  if (pm2Slots) return file.replace(/-[0-9]+\.log$|\.log$/, `-${slot}.log`);
  const ext = path.extname(file);
  return `${file.slice(0, file.length - ext.length)}-${slot}${ext}`;
}

/** The files an app's slot writes to: {out, err} (the same path when out_file = error_file). */
export function slotFiles(settings, slot) {
  if (!settings.perSlot) return { out: settings.out, err: settings.err };
  const { pm2Slots } = settings;
  return { out: slotPath(settings.out, slot, pm2Slots), err: slotPath(settings.err, slot, pm2Slots) };
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
