// Control ops -> supervisor calls. Arguments were already checked by protocol.parseRequest.
import { PROTOCOL } from '../../ipc/protocol.js';
import { SuperError } from '../../errors.js';
import { makeLogHandlers } from '../../logs/ops.js';
import { daemonStats } from '../health/index.js';
import { inheritable } from './registry.js';
import { withIds } from './app-ids.js';
import { maskConfig } from './mask-secrets.js';
import { fileLessApp } from './file-less-app.js';
import { reloadUpdatingEnv, applyEnvToRunning } from './env-refresh.js';
import { signalWorkers, resetCounters, workerEnvironment } from './worker-ops.js';

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
    start: async (a, conn, progress) => {
      const result = await supervisor.startFromFile(a);
      // --watch: the file's apps reload when their files change (their cwd, if no watch paths)
      if (a.watch) for (const name of [...result.started, ...result.running]) watcher.set(name, true);
      // --env <name> on running apps: their new env applies now, through a rolling reload
      const reloaded = await applyEnvToRunning(supervisor, { file: a.file, env: a.env, changed: result.changed, progress });
      return reloaded ? { ...result, reloaded: reloaded.apps } : result;
    },
    'start-script': async (a) => {
      const { clientEnv, watch, ...spec } = a;
      const { config, daemon, source } = await fileLessApp(spec, { allowedCpus: supervisor.daemonPolicy.allowed, loadDefaults: supervisor.loadDefaults });
      const entry = { config, clientEnv: clientEnv && inheritable(clientEnv), source };
      const result = await supervisor.startConfigs([entry], daemon, `super start ${spec.script}`);
      if (watch) watcher.set(config.name, true);
      return result;
    },
    'start-apps': (a) => {
      const apps = supervisor.targets(a.target);
      const entries = apps.map((app) => ({ config: app.pendingConfig ?? app.config, clientEnv: app.clientEnv, source: app.source }));
      // the daemon-wide settings stay as they are
      const daemon = { scheduling: supervisor.schedulingName, scheduling_set: false, cpu_affinity: null };
      return supervisor.startConfigs(entries, daemon, 'super start');
    },
    watch: (a) => watcher.set(a.app, a.on),
    stop: (a) => supervisor.stop(a.target),
    restart: (a) => supervisor.restart(a.target),
    reload: (a, conn, progress) => (a.updateEnv
      ? reloadUpdatingEnv(supervisor, a.target, a.updateEnv, { keepConfig: a.keepConfig, progress })
      : supervisor.reload(a.target, { keepConfig: a.keepConfig, progress })),
    signal: (a) => signalWorkers(supervisor.targets(a.target), a.signal, a.slot),
    reset: (a) => resetCounters(supervisor.targets(a.target)),
    env: (a) => workerEnvironment(supervisor.app(a.app, 'env'), a.slot),
    delete: (a) => supervisor.delete(a.target),
    scale: (a) => supervisor.scale(a.app, a.count),
    ls: async (a) => {
      const data = await supervisor.ls({ history: a.history === true });
      return { ...data, apps: withIds(supervisor.apps, data.apps) };
    },
    describe: async (a) => {
      const data = await supervisor.describe(a.app);
      const [app] = withIds(supervisor.apps, [data.app]);
      app.watch = watcher.status(app.name);
      const source = supervisor.apps.get(app.name)?.source ?? null;
      // a file-less app's --env-var values are env like any other: masked
      app.source = source?.command ? { ...source, command: maskConfig(source.command) } : source;
      return { ...data, app };
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
