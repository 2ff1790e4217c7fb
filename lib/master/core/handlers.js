// Control ops -> registry calls and status views. Arguments were already checked by
// protocol.parseRequest; the connection (lib/ipc/connection.js) is used only through its
// methods.
import { PROTOCOL } from '../../ipc/protocol.js';
import { SuperError } from '../../errors.js';
import { makeLogHandlers } from './log-handlers.js';
import { daemonStats } from '../health/index.js';
import { describeView } from './status-view.js';
import { tailFile } from './tail-file.js';

/**
 * @param {object} o
 * @param {import('./registry.js').AppRegistry} o.registry
 * @param {import('../health/monitor.js').Monitor} o.monitor  the workers' metrics and the status view of `ls`
 * @param {import('../watch/watcher.js').WatchManager} o.watcher
 * @param {import('pino').Logger} o.log
 * @param {string} o.version
 * @param {(reason: string) => void} o.shutdown
 * @param {() => boolean} [o.stopping]
 */
export function makeHandlers({ registry, monitor, watcher, log, version, shutdown, stopping = () => false }) {
  const startedAt = Date.now();
  const logs = makeLogHandlers(registry, log);
  return {
    ping: () => ({ pong: true, pid: process.pid, uptime_ms: Date.now() - startedAt }),
    version: () => ({ version, protocol: PROTOCOL, node: process.version }),
    start: async (a) => {
      const result = await registry.startFromFile(a);
      // --watch: the file's apps reload when their files change (their cwd, if no watch paths)
      if (a.watch) for (const name of [...result.started, ...result.running]) registry.setWatch(name, true);
      return result;
    },
    watch: (a) => registry.setWatch(a.app, a.on),
    stop: (a) => registry.stop(a.target),
    restart: (a) => registry.restart(a.target),
    reload: (a, conn, progress) => registry.reload(a.target, { keepConfig: a.keepConfig, progress }),
    delete: (a) => registry.delete(a.target),
    scale: (a) => registry.scale(a.app, a.count),
    ls: (a) => monitor.status({ history: a.history === true }),
    describe: async (a) => {
      registry.app(a.app, 'describe'); // E_APP_NOT_FOUND, or "all" refused
      const metricsOf = await monitor.sampledMetrics();
      const app = registry.reader.app(a.app);
      const lastStderr = app ? await tailFile(app.logs.err, 800) : '';
      const view = describeView(registry.reader.snapshot(), a.app, metricsOf, { lastStderr, watch: watcher.status(a.app) });
      // Deleted while its stderr was read.
      if (!view) registry.app(a.app, 'describe');
      return view;
    },
    kill: () => {
      // Reply first; the client then waits for the connection to close.
      setImmediate(() => shutdown('kill command'));
      return { stopping: true, pid: process.pid };
    },
    subscribe: async (a, conn) => {
      const topics = conn.subscribe(a.topics);
      // "log": new lines of every app from now on (as `logs {follow: true}` without the tail)
      if (a.topics.includes('log')) await logs.logs({ target: 'all', lines: 0, follow: true }, conn);
      return { topics };
    },
    unsubscribe: (a, conn) => {
      conn.unsubscribe();
      return {};
    },
    save: async (a) => {
      // A stopping daemon's list is emptying: never let it replace a good dump.
      if (stopping()) throw new SuperError('E_DUMP', 'the daemon is stopping; the saved process list was left as it was');
      const { saveApps } = await import('../saved/saved-state.js');
      return saveApps(registry, { version, force: a.force });
    },
    resurrect: async () => {
      const { resurrectApps } = await import('../saved/saved-state.js');
      return resurrectApps(registry);
    },
    stats: (a) => daemonStats(a),
    ...logs,
  };
}
