// The superd daemon: the cluster primary for every app and the control-channel server.
// Started detached by `super start` (lib/ctl/launch-daemon.js), or in the foreground
// (`super daemon`, `super run`: lib/ctl/commands/) through startDaemon().
//
// Boot:     home checks -> pid file (one daemon per SUPER_HOME) -> log -> control socket
//           -> [--listen: TCP control listener] -> [--resurrect: apps of dump.json]
//           -> "ready" to the launching CLI (IPC) if any, and to systemd (READY=1) when
//           NOTIFY_SOCKET is set.
// Shutdown: SIGTERM/SIGINT/`super kill` -> every worker retired gracefully (drain, kill_signal,
//           SIGKILL after kill_timeout) -> socket and pid file removed -> exit 0.
// SIGHUP:   rolling reload of every app.
// SIGUSR2:  reopen every log file at its path (after an external logrotate).
// Upgrade:  `super upgrade` starts a successor (lib/master/upgrade/), which boots with
//           SUPERD_UPGRADE=1: no pid file and a temporary control socket until it commits;
//           this daemon then retires its workers and exits, leaving the socket and the pid
//           file to it. Listening sockets handed over (or passed by systemd, LISTEN_FDS)
//           are adopted at boot, before any worker listens.
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { superHome, socketPath, pidPath, daemonLogPath, describeIo } from '../../home.js';
import { prepareHome, acquirePidFile, releasePidFile } from '../saved/index.js';
import { startControlServer } from '../../ipc/server.js';
import { AppRegistry } from './registry.js';
import { CronRestarts } from './cron-restart.js';
import { Monitor, MetricsSettings } from '../health/index.js';
import { RemoteControl } from '../settings/index.js';
import { makeHandlers } from './handlers.js';
import { reapAllNow, recordGroupsIn, endLeftoverGroups, protectDaemon } from '../process/index.js';
import { SuperError } from '../../errors.js';
import { sdNotify, startWatchdog, reloadNotices } from './systemd-notify.js';
import { WatchManager } from '../watch/index.js';
import { createDaemonLog } from '../../logs/daemon-log.js';
import { reloadAllLogs } from './log-handlers.js';
import { stopDeadline } from './stop-deadline.js';
import { Diagnostics } from '../diagnostics/index.js';
import { Upgrade, Handover, adoptInheritedSockets, trackClusterListeners } from '../upgrade/index.js';
import { launchGateOpened } from './launch-gate.js';

const here = path.dirname(fileURLToPath(import.meta.url));
const agentPath = path.join(here, '..', '..', 'worker', 'agent.cjs');
const { version } = JSON.parse(fs.readFileSync(path.join(here, '..', '..', '..', 'package.json'), 'utf8'));

/** Exit status of a daemon that lost the race to another one (the CLI then just connects). */
export const EXIT_ALREADY_RUNNING = 10;

/**
 * Runs this process as the daemon. Resolves once it is ready (the returned handles are
 * for the foreground commands); the process exits from shutdown().
 * @param {object} [opts]
 * @param {boolean} [opts.resurrect]  start the apps of $SUPER_HOME/dump.json
 * @param {{listen: string, tls: {cert: string, key: string}|null, origins: string[]}} [opts.control]  open the
 *   TCP control listener at boot (`super daemon --listen`); a failure exits (2 for bad settings) before "ready"
 * @param {() => Promise<void>} [opts.afterStop]  runs once every app has stopped, before
 *   the control socket closes (`super run` lets its log printer finish there)
 * @param {object} [opts.loadDefaults]  loadEcosystem options for every file the daemon reads
 *   (`super run`: {mergeLogsDefault: false}, one log file per worker)
 * @param {'file'|'stderr'} [opts.logTo]  the daemon's own log: daemon.log (default) or stderr
 *   (`super daemon --log-to stderr`, the systemd unit: journald keeps it)
 */
export async function startDaemon({ resurrect = false, afterStop, control, loadDefaults, logTo } = {}) {
  if (!(await launchGateOpened())) process.exit(0); // the file `super start` checked was refused
  const home = superHome();
  const handover = Handover.fromEnv(); // started by `super upgrade`
  // Until a successor commits, its control socket listens beside the real one.
  let controlPath = handover ? handover.controlPath(socketPath(home)) : socketPath(home);
  let log;
  try {
    requireLinux();
    prepareHome(home);
    if (!handover) acquirePidFile(pidPath(home));
    log = createDaemonLog(daemonLogPath(home), { to: logTo }).log;
  } catch (err) {
    releasePidFile(pidPath(home));
    const failure = err instanceof SuperError ? err : new SuperError('E_HOME', `cannot open ${daemonLogPath(home)}: ${describeIo(err)}`);
    await bootFailed(failure, err.code === 'E_DAEMON_RUNNING' ? EXIT_ALREADY_RUNNING : 1);
  }
  trackClusterListeners(); // so that `super upgrade` can stop this daemon accepting
  logOomScore(await protectDaemon(), log);
  const adopted = adoptInheritedSockets();
  if (adopted.length) log.info({ sockets: adopted }, 'adopted inherited listening sockets');
  // What a previous daemon of this home left running when it died goes before anything starts
  // (not in a successor of `super upgrade`: the daemon it replaces still serves with its workers).
  if (!handover) for (const { pgid, pids } of await endLeftoverGroups(home)) log.warn({ pgid, pids }, 'ended a process group a previous daemon left running');
  recordGroupsIn(home);

  // The composition root: each part gets its collaborators here, at construction. The
  // registry calls none of the others; they hear its events and read it through its
  // read-only face (registry.reader).
  let server = null;
  const broadcast = (topic, data) => server?.broadcast(topic, data);
  // The Prometheus text and the workers' memory are asked for later (a scrape, a surge
  // reload), when the monitor below exists.
  const metrics = new MetricsSettings({ log, render: () => monitor.prometheusText(), readiness: (app) => monitor.readiness(app) });
  const registry = new AppRegistry({
    home,
    log,
    agentPath,
    metrics,
    control: new RemoteControl({ home, log, server: () => server }),
    loadDefaults,
    workerMemory: (pids) => monitor.memoryOf(pids),
  });
  const monitor = new Monitor({
    reader: registry.reader,
    settings: metrics,
    replaceSlot: (app, slot, reason) => registry.replaceSlot(app, slot, reason),
    version,
    log,
    broadcast,
    subscribed: (topic) => server?.subscribed(topic) ?? false,
  });
  const watcher = new WatchManager({
    reader: registry.reader,
    reload: (name) => registry.reload(name, { keepConfig: true }),
    log,
    emit: (data) => broadcast('watch', data),
  });
  const cron = new CronRestarts({ reader: registry.reader, reload: (name) => registry.reload(name, { keepConfig: true }), log });
  const diagnostics = new Diagnostics({ home, reader: registry.reader, log });
  registry.on('worker', (event) => broadcast('worker', event));
  registry.on('reload', (info) => broadcast('reload', info));

  let stopping = null;
  let handedOver = false; // a successor owns the control socket and the pid file
  /** Stops every app gracefully, then exits with `code` (0 unless told otherwise). */
  const shutdown = (reason, code = 0) => {
    stopping ??= (async () => {
      // The slowest worker's drain_timeout + kill_timeout, plus a margin (lib/master/core/stop-deadline.js).
      const deadline = stopDeadline(registry.apps.values());
      log.info({ reason, deadline_ms: deadline }, 'daemon stopping: stopping every app');
      if (!handedOver) sdNotify(['STOPPING=1', 'STATUS=stopping every app'], log);
      const hard = setTimeout(() => {
        log.error({ deadline_ms: deadline }, 'graceful stop took too long; exiting anyway');
        finish(1);
      }, deadline);
      hard.unref();
      try {
        await registry.stopAll();
      } catch (err) {
        log.error({ err }, 'error while stopping apps');
      }
      await afterStop?.().catch((err) => log.error({ err }, 'afterStop failed'));
      finish(code);
    })();
    return stopping;
  };

  const finish = async (code) => {
    monitor.close();
    metrics.close();
    cron.close();
    diagnostics.close();
    reapAllNow();
    await watcher.close().catch(() => {});
    // Closing a unix socket server unlinks its path, now the successor's: just exit.
    if (!handedOver) {
      await server?.close().catch(() => {});
      fs.rmSync(controlPath, { force: true });
    }
    releasePidFile(pidPath(home));
    log.info({ code }, 'daemon exit');
    log.flush?.(() => process.exit(code));
    setTimeout(() => process.exit(code), 500).unref();
  };

  process.on('SIGTERM', () => shutdown('SIGTERM'));
  process.on('SIGINT', () => shutdown('SIGINT'));
  // SIGUSR2: reopen every log file at its path (after an external logrotate), as `super reload-logs`.
  process.on('SIGUSR2', () => {
    reloadAllLogs(registry, log).catch((err) => log.warn({ err: err.message }, 'reopening log files failed'));
  });
  // RELOADING=1 / READY=1 around reloads of every app, under systemd.
  const reloadNotice = reloadNotices(log);
  // SIGHUP (systemd's ExecReload, `kill -HUP`): rolling reload of every app, as `super reload all`.
  process.on('SIGHUP', () => {
    log.info('SIGHUP: reloading all apps');
    reloadNotice(() => registry.reload('all')).then(
      (r) => log.info({ apps: r.apps.map((a) => ({ app: a.app, ok: a.ok, failed: a.failed?.reason })) }, 'SIGHUP reload finished'),
      (err) => log.error({ err: err.message, code: err.code }, 'SIGHUP reload refused'),
    );
  });
  // The daemon's death would take every app with it (cluster primary): contain and log.
  process.on('uncaughtException', (err) => log.fatal({ err }, 'uncaught exception (contained)'));
  process.on('unhandledRejection', (err) => log.error({ err }, 'unhandled rejection (contained)'));

  // `super upgrade`: once the successor owns SUPER_HOME, tell systemd who the main process
  // is now, close the TCP control listener (the successor listens on the same socket) and
  // retire every worker gracefully.
  const upgrade = new Upgrade({
    registry,
    log,
    refuse: afterStop ? 'it runs in the foreground for `super run` (restart the container to replace it)' : null,
    retire: (successor) => {
      handedOver = true;
      sdNotify([`MAINPID=${successor}`, `STATUS=handed over to pid ${successor}`], log);
      server.remote?.close().catch(() => {});
      shutdown(`upgraded: pid ${successor} took over`);
    },
  });

  try {
    server = await startControlServer({
      socketPath: controlPath,
      handlers: upgrade.guard(makeHandlers({ registry, monitor, watcher, cron, diagnostics, log, version, shutdown, stopping: () => stopping !== null, reloadNotice })),
      hello: { version, pid: process.pid },
      log,
    });
  } catch (err) {
    const code = err instanceof SuperError ? err.code : 'E_INTERNAL';
    process.stderr.write(`superd: ${code}: ${err.message}\n`);
    log.error({ err }, 'control server failed');
    releasePidFile(pidPath(home));
    process.exit(code === 'E_DAEMON_RUNNING' ? EXIT_ALREADY_RUNNING : 1);
  }
  if (control) {
    try {
      await registry.control.apply(await registry.control.check(control, '--listen'));
    } catch (err) {
      process.stderr.write(`superd: ${err.code ?? 'E_INTERNAL'}: ${err.message}\n`);
      log.error({ err: err.message }, 'control listener failed');
      await server.close().catch(() => {});
      fs.rmSync(controlPath, { force: true });
      releasePidFile(pidPath(home));
      process.exit(err.exitStatus ?? 1);
    }
  }
  if (handover) {
    try {
      await handover.run({ registry, log, socketPath: socketPath(home), pidPath: pidPath(home) });
      controlPath = socketPath(home);
      // The daemon this one replaced told systemd MAINPID=<this pid>: the watchdog is ours now.
      if (process.env.WATCHDOG_PID) process.env.WATCHDOG_PID = String(process.pid);
    } catch (err) {
      log.error({ err: err.message }, 'upgrade: this successor did not take over; stopping');
      process.stderr.write(`superd: ${err.code ?? 'E_UPGRADE_FAILED'}: ${err.message}\n`);
      await shutdown('upgrade failed', 1);
      return new Promise(() => {});
    }
  }
  log.info({ home, version, node: process.version, upgraded: Boolean(handover) }, 'daemon ready');
  startWatchdog(log); // WATCHDOG=1 from this loop while it turns, when the unit has WatchdogSec=
  if (resurrect) await resurrectAtBoot(registry, log);
  if (process.send && !handover) {
    process.send({ cmd: 'super:daemon-ready', pid: process.pid });
    process.disconnect();
  }
  // A successor is not systemd's main process: the daemon it replaced said MAINPID for it.
  if (!handover) sdNotify(['READY=1', `STATUS=${registry.apps.size} app(s)`, `MAINPID=${process.pid}`], log);
  return { home, log, registry, shutdown, version };
}

/**
 * What protectDaemon did, said once at boot.
 * @param {{before: number|null, now: number|null, error?: string}} r  @param {object} log
 */
function logOomScore({ before, now, error }, log) {
  if (now === null) return;
  if (error) log.info({ oom_score_adj: now, error }, `oom_score_adj stays ${now}: lowering it needs root with CAP_SYS_RESOURCE (or OOMScoreAdjust= in the daemon's systemd unit); workers keep the same`);
  else log.info({ oom_score_adj: now, was: before }, `oom_score_adj ${now}: under memory pressure the OOM killer takes workers before the daemon`);
}

/**
 * Says why the daemon cannot boot, on stderr (daemon.err, the journal) and to the CLI that
 * launched it, if any (over IPC: a full disk leaves daemon.err empty), then exits.
 */
async function bootFailed(err, status) {
  const code = err instanceof SuperError ? err.code : 'E_INTERNAL';
  try {
    process.stderr.write(`superd: ${code}: ${err.message}\n`);
  } catch {} // stderr on a full disk
  if (process.send) await new Promise((resolve) => process.send({ cmd: 'super:daemon-failed', error: { code, message: err.message } }, resolve));
  process.exit(status);
}

/**
 * `--resurrect` at boot: no dump (a fresh machine) is fine; a corrupt one is said on
 * stderr (the journal) and in daemon.log, and the daemon runs on without apps: exiting
 * would only make systemd restart it into the same error.
 */
async function resurrectAtBoot(registry, log) {
  const { resurrectApps } = await import('../saved/saved-state.js');
  try {
    const r = await resurrectApps(registry);
    log.info({ file: r.file, started: r.started, failed: r.failed }, 'resurrected saved apps');
    for (const f of r.failed) process.stderr.write(`superd: E_START_FAILED: ${f.app}#${f.slot} ${f.reason} before it became ready\n`);
  } catch (err) {
    if (err.details?.missing) {
      log.info('no saved process list; starting with no apps');
      return;
    }
    log.error({ err }, 'resurrect failed');
    process.stderr.write(`superd: ${err.code ?? 'E_INTERNAL'}: ${err.message}\n`);
  }
}

// Run as a script (`node lib/master/core/daemon.js`, how `super start` launches it detached).
if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) startDaemon();

/**
 * Worker metrics read /proc, pinning runs taskset, workers lead process groups through
 * setsid and die with the daemon through setpriv: the daemon runs on Linux only (the CLI
 * also talks to a remote daemon from elsewhere, with --host).
 */
function requireLinux() {
  if (process.platform !== 'linux') {
    throw new SuperError('E_PLATFORM', `the superd daemon runs on Linux only (this is ${process.platform}); from here, \`super --host\` talks to a daemon on a Linux host`);
  }
}
