// Control ops for logs (`logs`, `reload-logs`, `flush`), on top of the supervisor's apps.
// Wire shapes are documented in lib/ipc/protocol.js.
import { SuperError } from '../errors.js';
import { appFiles } from './settings.js';
import { tailLines } from './tail.js';
import { LogFollower } from './follow.js';
import { reopenDaemonLog } from './daemon-log.js';
import { compileParser } from './date-format.cjs';

// Leaves room under the control channel's 1 MiB frame for JSON escaping.
const REPLY_BYTES = 600 * 1024;
const ISO_RE = /^(\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z)/;

/** How to read the time of a line of this app, or null when its lines carry none. */
function timeReader(s) {
  if (s.type === 'json') {
    const parse = s.date && s.date !== 'ISO' ? compileParser(s.date) : (v) => Date.parse(v);
    return (line) => {
      try {
        const ts = JSON.parse(line).ts;
        const t = typeof ts === 'string' ? parse(ts) : null;
        return Number.isFinite(t) ? t : null;
      } catch {
        return null;
      }
    };
  }
  if (s.date === 'ISO') return (line) => (ISO_RE.test(line) ? Date.parse(ISO_RE.exec(line)[1]) : null);
  if (s.date) return compileParser(s.date);
  return null;
}

/** Reopens every app log file and daemon.log at their paths (`reload-logs`, SIGUSR2). */
export async function reloadAllLogs(supervisor) {
  const apps = [...supervisor.apps.values()];
  const files = (await Promise.all(apps.map((app) => app.logs.reopen()))).flat();
  reopenDaemonLog();
  supervisor.log.info({ files: files.length }, 'log files reopened');
  return { apps: apps.map((a) => a.name), files };
}

/** @param {import('../master/core/registry.js').Supervisor} supervisor */
export function makeLogHandlers(supervisor) {
  const filesOf = (target, stream) => supervisor.targets(target).flatMap((app) => appFiles(app.logs.settings, app.slots.map((s) => s.index))
    .filter((f) => !stream || f.stream === stream)
    .map((f) => ({ ...f, app: app.name })));

  return {
    async logs(a, conn) {
      const target = a.target ?? 'all';
      const apps = supervisor.targets(target);
      const readers = new Map(apps.map((app) => [app.name, timeReader(app.logs.settings)]));
      if (a.since !== undefined) {
        const undated = apps.filter((app) => !readers.get(app.name)).map((app) => app.name);
        if (undated.length) throw new SuperError('E_USAGE', `--since needs dated log lines, and ${undated.join(', ')} writes none; set log_date_format, time: true or log_type: json`);
      }
      const files = filesOf(target, a.stream);
      let ends = null;
      if (a.follow) {
        conn.logFollower?.stop();
        const follower = new LogFollower({
          ws: conn.ws,
          files: () => {
            try {
              return filesOf(target, a.stream);
            } catch {
              return []; // the app was deleted
            }
          },
        });
        conn.logFollower = follower;
        ends = await follower.start();
        // Events start after this reply: the tail ends where the follow begins.
        setImmediate(() => follower.run());
      }
      const lines = a.lines ?? 20;
      const budget = Math.floor(REPLY_BYTES / Math.max(files.length, 1));
      const tails = await Promise.all(files.map(async (f) => {
        const opts = { lines: a.since !== undefined && a.lines === undefined ? 10000 : lines, maxBytes: budget, since: a.since, timeOf: readers.get(f.app) };
        const current = await tailLines(f.path, { ...opts, end: ends?.get(f.path) });
        // Just after a rotation the current file is short: the rest comes from file.1.
        if (current.length >= opts.lines || (a.since !== undefined && current.length)) return current;
        const before = await tailLines(`${f.path}.1`, { ...opts, lines: opts.lines - current.length });
        return [...before, ...current];
      }));
      return { files: files.map((f, i) => ({ ...f, lines: tails[i] })), following: Boolean(a.follow) };
    },

    'reload-logs': () => reloadAllLogs(supervisor),

    async flush(a) {
      const apps = supervisor.targets(a.target ?? 'all');
      const files = (await Promise.all(apps.map((app) => app.logs.flush()))).flat();
      supervisor.log.info({ apps: apps.map((x) => x.name) }, 'logs flushed');
      return { apps: apps.map((x) => x.name), files };
    },
  };
}
