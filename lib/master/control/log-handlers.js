// Control ops for logs (`logs`, `reload-logs`, `flush`): the registry's apps turned into
// the files lib/logs reads, follows, reopens and empties. Wire shapes are documented in
// lib/ipc/protocol.js.
import { SuperError } from '../../errors.js';
import { appFiles } from '../../logs/settings.js';
import { tailFiles, timeReader } from '../../logs/tail.js';
import { LogFollower } from '../../logs/follow.js';
import { reopenDaemonLog } from '../../logs/daemon-log.js';

/** Reopens every app log file and daemon.log at their paths (`reload-logs`, SIGUSR2). */
export async function reloadAllLogs(registry, log) {
  const result = await registry.reopenLogs();
  reopenDaemonLog();
  log.info({ files: result.files.length }, 'log files reopened');
  return result;
}

/**
 * @param {import('../apps/registry.js').AppRegistry} registry
 * @param {import('../../logs/json-logger.js').JsonLogger} log
 */
export function makeLogHandlers(registry, log) {
  /**
   * Every (app, slot, stream, path) the apps `target` names write to. An app with no slot
   * yet (`super run` follows its apps before their first start) has the files of the slots
   * it will start: a follow begins at their end, so lines a former run left there (a
   * container restarted with the same writable layer) are not printed again.
   */
  const slotsOf = (app) => (app.slots.length ? app.slots.map((s) => s.index) : Array.from({ length: app.config.instances }, (_, i) => i));
  const filesOf = (target, stream) => registry.targets(target).flatMap((app) => appFiles(app.logs.settings, slotsOf(app))
    .filter((f) => !stream || f.stream === stream)
    .map((f) => ({ ...f, app: app.name })));

  return {
    async logs(a, conn) {
      const target = a.target ?? 'all';
      const apps = registry.targets(target);
      const readers = new Map(apps.map((app) => [app.name, timeReader(app.logs.settings)]));
      if (a.since !== undefined) {
        const undated = apps.filter((app) => !readers.get(app.name)).map((app) => app.name);
        if (undated.length) throw new SuperError('E_USAGE', `--since needs dated log lines, and ${undated.join(', ')} writes none; set log_date_format, time: true or log_type: json`);
      }
      const files = filesOf(target, a.stream);
      let ends = null;
      if (a.follow) {
        const follower = new LogFollower({
          sink: conn.logSink,
          files: () => {
            try {
              return filesOf(target, a.stream);
            } catch {
              return []; // the app was deleted
            }
          },
        });
        conn.follow(follower);
        ends = await follower.start();
        // Events start after this reply: the tail ends where the follow begins.
        setImmediate(() => follower.run());
      }
      // Which shown stderr lines a failed earlier start left: a healthy app must not look broken.
      const byName = new Map(apps.map((app) => [app.name, app]));
      const markOf = (f) => (f.stream === 'err' ? byName.get(f.app)?.stderrSince(f.slot ?? 0) ?? null : null);
      const tails = await tailFiles(files, { lines: a.lines, since: a.since, ends: ends ?? undefined, timeOf: (f) => readers.get(f.app) ?? null, markOf });
      return { files: tails, following: Boolean(a.follow) };
    },

    'reload-logs': () => reloadAllLogs(registry, log),

    async flush(a) {
      const result = await registry.flushLogs(a.target ?? 'all');
      log.info({ apps: result.apps }, 'logs flushed');
      return result;
    },
  };
}
