// Control ops -> registry calls and status views. Arguments were already checked by
// protocol.parseRequest; the connection (lib/ipc/connection.js) is used only through its
// methods.
import { PROTOCOL } from '../../ipc/protocol.js';
import { SuperError } from '../../errors.js';
import { makeLogHandlers } from './log-handlers.js';
import { daemonStats } from '../health/index.js';
import { inheritable, describeView, tailFile } from '../apps/index.js';
import { fileLessApp } from './file-less-app.js';
import { applyEnvToRunning, refreshRunning } from './env-refresh.js';
import { signalWorkers, workerPids, workerEnvironment } from './worker-ops.js';
import { captureTargets } from './capture-targets.js';
import { startCapacityCopy } from './capacity-copy.js';
import { saveApps, resurrectApps } from '../saved/index.js';
import { describePath } from '../process/index.js';

/**
 * @param {object} o
 * @param {import('../apps/registry.js').AppRegistry} o.registry
 * @param {import('../settings/daemon-settings.js').DaemonSettings} o.settings
 * @param {import('../health/monitor.js').Monitor} o.monitor  the workers' metrics and the status view of `ls`
 * @param {import('../watch/watcher.js').WatchManager} o.watcher
 * @param {import('../apps/cron-restart.js').CronRestarts} o.cron
 * @param {import('../captures/captures.js').Captures} o.captures  profiles and heap snapshots
 * @param {import('../deploy/index.js').DeployRecord} o.deploy  what `super deploy` recorded here
 * @param {import('../../logs/json-logger.js').JsonLogger} o.log
 * @param {string} o.version
 * @param {(reason: string) => void} o.shutdown
 * @param {() => boolean} [o.stopping]
 * @param {<T>(reload: () => Promise<T>) => Promise<T>} [o.reloadNotice]  wraps a reload of every
 *   app (systemd-notify.js reloadNotices)
 */
export function makeHandlers({ registry, settings, monitor, watcher, cron, captures, deploy, log, version, shutdown, stopping = () => false, reloadNotice = (reload) => reload() }) {
  const startedAt = Date.now();
  const logs = makeLogHandlers(registry, log);
  return {
    ping: () => ({ pong: true, pid: process.pid, uptime_ms: Date.now() - startedAt }),
    token: async (a) => ({ token: await settings.control.token({ rotate: a.rotate === true }) }),
    version: () => ({ version, protocol: PROTOCOL, node: process.version }),
    start: async (a, conn, progress) => {
      const result = await registry.startFromFile({ ...a, rollback: true, keepEnv: Boolean(a.then) });
      // --watch: the file's apps reload when their files change (their cwd, if no watch paths)
      if (a.watch) for (const name of [...result.started, ...result.running]) registry.setWatch(name, true);
      if (a.then) return { ...result, ...(await refreshRunning(registry, a, result, progress)) };
      // --env <name> on running apps: their new env applies now, through a rolling reload
      const reloaded = await applyEnvToRunning(registry, { file: a.file, env: a.env, cwd: a.cwd, changed: result.changed, progress });
      return reloaded ? { ...result, reloaded: reloaded.apps } : result;
    },
    // `super start <file>` asks as soon as it connects: the thread that reads files
    // (lib/config/load-off-thread.js) starts while the CLI still checks the file.
    'warm-reader': async () => {
      const { warmReader } = await import('../../config/load-off-thread.js');
      warmReader();
      return {};
    },
    'start-script': async (a) => {
      const { clientEnv, watch, ...spec } = a;
      const { config, daemon, source, warnings } = await fileLessApp(spec, settings.loadOptions());
      const entry = { config, clientEnv: clientEnv && inheritable(clientEnv), source };
      const result = await registry.startConfigs([entry], daemon, `super start ${spec.script}`, undefined, { rollback: true });
      if (watch) registry.setWatch(config.name, true);
      return warnings.length ? { ...result, warnings: [...warnings, ...(result.warnings ?? [])] } : result;
    },
    'start-apps': (a) => registry.startApps(a.target),
    watch: (a) => registry.setWatch(a.app, a.on),
    stop: (a) => registry.stop(a.target),
    restart: (a) => registry.restart(a.target, { clientEnv: a.updateEnv }),
    reload: (a, conn, progress) => {
      // --update-env: the replacements get the caller's environment
      const overrides = a.updateEnv ? { clientEnv: a.updateEnv } : null;
      const reload = () => registry.reload(a.target, { keepConfig: a.keepConfig, progress, overrides });
      return [a.target].flat().includes('all') ? reloadNotice(reload) : reload();
    },
    signal: (a) => signalWorkers(registry.targets(a.target), a.signal, a.slot),
    pid: (a) => ({ workers: workerPids(registry.targets(a.target), a.slot) }),
    reset: (a) => registry.resetCounters(a.target),
    env: (a) => workerEnvironment(registry.app(a.app, 'env'), a.slot),
    delete: (a) => registry.delete(a.target),
    scale: (a) => registry.scale(a.app, a.count),
    ls: (a) => monitor.status({ history: a.history === true }),
    describe: async (a) => {
      const { name } = registry.app(a.app, 'describe'); // E_APP_NOT_FOUND, or "all" refused; ids resolved
      const metricsOf = await monitor.sampledMetrics();
      const app = registry.reader.app(name);
      // Only what its current workers wrote: a failed earlier start's lines are not this app's story.
      const lastStderr = app ? await tailFile(app.logs.err, 800, registry.reader.stderrSince(name)) : '';
      const extra = { lastStderr, watch: watcher.status(name), cron: app ? cron.status(app) : null, connections: app ? describePath(app.config) : null };
      // null: deleted while its stderr was read (registry.app says so)
      return describeView(registry.reader.snapshot(), name, metricsOf, extra) ?? registry.app(name, 'describe');
    },
    kill: () => {
      // Reply first; the client then waits for the connection to close.
      setImmediate(() => shutdown('kill command'));
      return { stopping: true, pid: process.pid };
    },
    subscribe: async (a, conn) => {
      const topics = conn.subscribe(a.topics);
      // "log": new lines of every app from now on (as `logs {follow: true}`), after the last
      // `lines` of each file (default none), which end where the follow begins
      if (!a.topics.includes('log')) return { topics };
      const { files } = await logs.logs({ target: 'all', lines: a.lines ?? 0, follow: true }, conn);
      return { topics, ...(a.lines && { files }) };
    },
    unsubscribe: (a, conn) => {
      conn.unsubscribe();
      return {};
    },
    save: (a) => {
      // A stopping daemon's list is emptying: never let it replace a good dump.
      if (stopping()) throw new SuperError('E_DUMP', 'the daemon is stopping; the saved process list was left as it was');
      return saveApps(registry, settings, { version, force: a.force });
    },
    resurrect: () => resurrectApps(registry, settings),
    stats: (a) => daemonStats(a),
    // conn.remote: over TCP, the file is sent back (diagnostic-file), never written to an --out
    profile: (a, conn) => captures.profile(captureTargets(registry, a, 'profile'), { duration: a.duration, out: a.out, force: a.force, remote: conn.remote !== null }),
    heap: (a, conn) => captures.heap(captureTargets(registry, a, 'heap'), { out: a.out, force: a.force, remote: conn.remote !== null }),
    'diagnostic-file': (a, conn, progress) => captures.file(a.name, conn, progress),
    // super capacity: a copy of an app on another port, removed when `conn` closes
    'capacity-copy': (a, conn) => startCapacityCopy(registry, settings, a, conn),
    'deploy-state': (a) => ({ deploy: a.set ? deploy.set(a.set) : deploy.current }),
    ...logs,
  };
}
