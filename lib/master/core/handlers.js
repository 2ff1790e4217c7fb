// Control ops -> supervisor calls. Arguments were already checked by protocol.parseRequest.
import { PROTOCOL } from '../../ipc/protocol.js';
import { SuperError } from '../../errors.js';
import { makeLogHandlers } from '../../logs/ops.js';
import { daemonStats } from '../health/index.js';

/**
 * @param {{supervisor: import('./registry.js').Supervisor, version: string, shutdown: (reason: string) => void,
 *   stopping?: () => boolean}} o
 */
export function makeHandlers({ supervisor, version, shutdown, stopping = () => false, watcher }) {
  const startedAt = Date.now();
  const logs = makeLogHandlers(supervisor);
  return {
    ping: () => ({ pong: true, pid: process.pid, uptime_ms: Date.now() - startedAt }),
    version: () => ({ version, protocol: PROTOCOL, node: process.version }),
    start: async (a) => {
      const result = await supervisor.startFromFile(a);
      // --watch: the file's apps reload when their files change (their cwd, if no watch paths)
      if (a.watch) for (const name of [...result.started, ...result.running]) watcher.set(name, true);
      return result;
    },
    watch: (a) => watcher.set(a.app, a.on),
    stop: (a) => supervisor.stop(a.target),
    restart: (a) => supervisor.restart(a.target),
    reload: (a, conn, progress) => supervisor.reload(a.target, { keepConfig: a.keepConfig, progress }),
    delete: (a) => supervisor.delete(a.target),
    scale: (a) => supervisor.scale(a.app, a.count),
    ls: (a) => supervisor.ls({ history: a.history === true }),
    describe: async (a) => {
      const data = await supervisor.describe(a.app);
      data.app.watch = watcher.status(a.app);
      return data;
    },
    kill: () => {
      // Reply first; the client then waits for the connection to close.
      setImmediate(() => shutdown('kill command'));
      return { stopping: true, pid: process.pid };
    },
    subscribe: async (a, conn) => {
      for (const t of a.topics) conn.topics.add(t);
      // "log": new lines of every app from now on (as `logs {follow: true}` without the tail)
      if (a.topics.includes('log')) await logs.logs({ target: 'all', lines: 0, follow: true }, conn);
      return { topics: [...conn.topics] };
    },
    unsubscribe: (a, conn) => {
      conn.topics.clear();
      conn.logFollower?.stop();
      return {};
    },
    save: async (a) => {
      // A stopping daemon's list is emptying: never let it replace a good dump.
      if (stopping()) throw new SuperError('E_DUMP', 'the daemon is stopping; the saved process list was left as it was');
      const { saveApps } = await import('../saved/saved-state.js');
      return saveApps(supervisor, { version, force: a.force });
    },
    resurrect: async () => {
      const { resurrectApps } = await import('../saved/saved-state.js');
      return resurrectApps(supervisor);
    },
    stats: (a) => daemonStats(a),
    ...logs,
  };
}
