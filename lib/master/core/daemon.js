// The superd daemon: the cluster primary for every app and the control-channel server.
// Started detached by `super start` (lib/ctl/launch-daemon.js), or in the foreground
// (`super daemon`, `super run`: lib/ctl/commands/) through startDaemon().
//
// Boot:     Linux and node:cluster's internals checked (E_NODE_INTERNALS) -> home checks
//           -> pid file (one daemon per SUPER_HOME) -> log -> control socket
//           -> [--listen: TCP control listener] -> [--resurrect: apps of dump.json]
//           -> "ready" to the launching CLI (IPC) if any, and to systemd (READY=1) when
//           NOTIFY_SOCKET is set.
// Shutdown: SIGTERM/SIGINT/`super kill` -> every worker retired gracefully (drain, kill_signal,
//           SIGKILL after kill_timeout) -> the parts closed in reverse (lifecycle.js: the
//           control socket first, the pid file last) -> exit 0. A boot failure closes the
//           parts opened so far the same way.
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
import { makeHandlers, reloadAllLogs } from '../control/index.js';
import { composeParts } from './compose.js';
import { reapAllNow, recordGroupsIn, recordFile, startOrphanReaper, endLeftoverGroups, protectDaemon, assertClusterInternals, trackRoundRobinListeners } from '../process/index.js';
import { SuperError } from '../../errors.js';
import { sdNotify, startWatchdog, reloadNotices } from './systemd-notify.js';
import { createDaemonLog } from '../../logs/daemon-log.js';
import { Upgrade, Handover, adoptInheritedSockets } from '../upgrade/index.js';
import { launchGateOpened } from './launch-gate.js';
import { EXIT_ALREADY_RUNNING, readyMessage } from '../../ipc/launch-protocol.js';
import { Lifecycle } from './lifecycle.js';
import { requireLinux, logOomScore, sayBootFailed, resurrectAtBoot } from './boot.js';

const here = path.dirname(fileURLToPath(import.meta.url));
const agentPath = path.join(here, '..', '..', 'worker', 'agent.cjs');
const { version } = JSON.parse(fs.readFileSync(path.join(here, '..', '..', '..', 'package.json'), 'utf8'));

/**
 * Runs this process as the daemon. Resolves once it is ready (the returned handles are
 * for the foreground commands); the process exits from shutdown(), or from the one
 * boot-failure path: whatever fails before "ready" closes the parts opened so far (in
 * reverse) and exits (EXIT_ALREADY_RUNNING when another daemon holds SUPER_HOME, else the
 * error's exit status: 2 for bad --listen settings).
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
export async function startDaemon(opts = {}) {
  if (!(await launchGateOpened())) process.exit(0); // the file `super start` checked was refused
  const parts = new Lifecycle();
  const boot = { log: null };
  try {
    return await bootDaemon(opts, parts, boot);
  } catch (err) {
    const code = await sayBootFailed(err, boot.log);
    await parts.closeAll();
    process.exit(code === 'E_DAEMON_RUNNING' ? EXIT_ALREADY_RUNNING : (err.exitStatus ?? 1));
  }
}

/** @param {NonNullable<Parameters<typeof startDaemon>[0]>} opts  @param {Lifecycle} parts  @param {{log: object|null}} boot */
async function bootDaemon({ resurrect = false, afterStop, control, loadDefaults, logTo }, parts, boot) {
  const home = superHome();
  const handover = Handover.fromEnv(); // started by `super upgrade`
  // Until a successor commits, its control socket listens beside the real one.
  let controlPath = handover ? handover.controlPath(socketPath(home)) : socketPath(home);
  requireLinux();
  assertClusterInternals(); // E_NODE_INTERNALS: this Node changed what the seam to node:cluster relies on
  prepareHome(home);
  parts.add('pid file', () => releasePidFile(pidPath(home))); // removed only while it holds this pid
  if (!handover) acquirePidFile(pidPath(home));
  const log = (boot.log = openLog(home, logTo));
  trackRoundRobinListeners(); // so that `super upgrade` can stop this daemon accepting
  logOomScore(await protectDaemon(), log);
  const { adopted, closed } = adoptInheritedSockets();
  if (adopted.length) log.info({ sockets: adopted }, 'adopted inherited listening sockets');
  if (closed.length) log.warn({ fds: closed }, 'closed inherited network sockets that do not listen (LISTEN_FDS names them)');
  // What a previous daemon of this home left running when it died goes before anything starts
  // (not in a successor of `super upgrade`: the daemon it replaces still serves with its workers).
  if (!handover) {
    const ended = (group) => log.warn(group, 'ended a process group a previous daemon left running');
    const left = await endLeftoverGroups(home, ended);
    left.ended.forEach(ended);
    for (const group of left.waiting) log.warn(group, `a previous daemon's worker still serves what it held; its group is ended in ${group.grace} ms unless it exits`);
  }
  recordGroupsIn(home);
  startOrphanReaper(recordFile(home)); // ends a stuck cluster worker once this daemon is gone (orphan-reaper.js)
  parts.add('process groups', reapAllNow);

  // The composition root (compose.js): each part gets its collaborators at construction.
  /** @type {{server: Awaited<ReturnType<typeof startControlServer>>|null}} */
  const link = { server: null }; // the control server, once it listens
  const { settings, registry, monitor, watcher, cron, captures, metrics, deploy } = composeParts({ home, log, loadDefaults, agentPath, version, parts, link });

  let stopping = null;
  let handedOver = false; // a successor owns the control socket and the pid file
  /** Stops every app gracefully, then closes every part and exits with `code` (0 unless told otherwise). */
  const shutdown = (reason, code = 0) => {
    stopping ??= (async () => {
      // The slowest worker's drain_timeout + kill_timeout, plus a margin (lib/master/apps/stop-deadline.js).
      const deadline = registry.stopDeadline();
      log.info({ reason, deadline_ms: deadline }, 'daemon stopping: stopping every app');
      if (!handedOver) sdNotify(['STOPPING=1', 'STATUS=stopping every app'], log);
      const hard = setTimeout(() => {
        log.error({ deadline_ms: deadline }, 'graceful stop took too long; exiting anyway');
        finish(1);
      }, deadline);
      hard.unref();
      try {
        await registry.stopAll({ lameDuck: !handedOver });
      } catch (err) {
        log.error({ err }, 'error while stopping apps');
      }
      await afterStop?.().catch((err) => log.error({ err }, 'afterStop failed'));
      finish(code);
    })();
    return stopping;
  };
  const finish = async (code) => {
    await parts.closeAll((part, err) => log.warn({ part, err: err.message }, 'closing a part of the daemon failed'));
    log.info({ code }, 'daemon exit');
    log.flush?.(() => process.exit(code));
    setTimeout(() => process.exit(code), 500).unref();
  };
  const reloadNotice = reloadNotices(log); // RELOADING=1 / READY=1 around reloads of every app, under systemd
  handleSignals({ registry, log, shutdown, reloadNotice });

  // `super upgrade`: once the successor owns SUPER_HOME, tell systemd who the main process
  // is now, close the TCP control listener (the successor listens on the same socket) and
  // retire every worker gracefully.
  const upgrade = new Upgrade({
    registry,
    settings,
    log,
    refuse: afterStop ? 'it runs in the foreground for `super run` (restart the container to replace it)' : null,
    retire: (successor) => {
      handedOver = true;
      sdNotify([`MAINPID=${successor}`, `STATUS=handed over to pid ${successor}`], log);
      link.server?.remote?.close().catch(() => {}); // set: a handover comes through it
      // The successor answers /readyz and HAProxy's agent on the same sockets: this daemon's
      // stopping workers must not answer for the host.
      metrics.stopAccepting().finally(() => shutdown(`upgraded: pid ${successor} took over`));
    },
  });
  const server = await startControlServer({
    socketPath: controlPath,
    handlers: upgrade.guard(makeHandlers({ registry, settings, monitor, watcher, cron, captures, deploy, log, version, shutdown, stopping: () => stopping !== null, reloadNotice })),
    hello: { version, pid: process.pid },
    log,
  });
  link.server = server;
  // Closing a unix socket server unlinks its path, which after a handover is the successor's: left alone then.
  parts.add('control socket', async () => {
    if (handedOver) return;
    await server.close().catch(() => {});
    fs.rmSync(controlPath, { force: true });
  });
  if (control) await settings.control.apply(await settings.control.check(control, '--listen'));
  if (handover) {
    try {
      await handover.run({ registry, settings, log, socketPath: socketPath(home), pidPath: pidPath(home) });
      controlPath = socketPath(home);
      // The daemon this one replaced told systemd MAINPID=<this pid>: the watchdog is ours now.
      if (process.env.WATCHDOG_PID) process.env.WATCHDOG_PID = String(process.pid);
    } catch (err) {
      // Its apps may run already: a graceful stop, not a boot failure.
      log.error({ err: err.message }, 'upgrade: this successor did not take over; stopping');
      process.stderr.write(`superd: ${err.code ?? 'E_UPGRADE_FAILED'}: ${err.message}\n`);
      await shutdown('upgrade failed', 1);
      return new Promise(() => {});
    }
  }
  log.info({ home, version, node: process.version, upgraded: Boolean(handover) }, 'daemon ready');
  startWatchdog(log); // WATCHDOG=1 from this loop while it turns, when the unit has WatchdogSec=
  if (resurrect) await resurrectAtBoot(registry, settings);
  if (process.send && !handover) {
    process.send(readyMessage(process.pid));
    process.disconnect();
  }
  // A successor is not systemd's main process: the daemon it replaced said MAINPID for it.
  if (!handover) sdNotify(['READY=1', `STATUS=${registry.reader.count()} app(s)`, `MAINPID=${process.pid}`], log);
  return { home, log, registry, shutdown, stopping: () => stopping !== null, version };
}

/** daemon.log (or stderr), E_HOME when it cannot be opened. */
function openLog(home, logTo) {
  try {
    return createDaemonLog(daemonLogPath(home), { to: logTo }).log;
  } catch (err) {
    throw err instanceof SuperError ? err : new SuperError('E_HOME', `cannot open ${daemonLogPath(home)}: ${describeIo(err)}`);
  }
}

/**
 * SIGTERM/SIGINT stop the daemon; SIGUSR2 reopens every log file at its path (after an
 * external logrotate), as `super reload-logs`; SIGHUP (systemd's ExecReload, `kill -HUP`)
 * reloads every app, as `super reload all`. The daemon's death would take every app with
 * it (cluster primary): an uncaught error is contained and logged.
 */
function handleSignals({ registry, log, shutdown, reloadNotice }) {
  process.on('SIGTERM', () => shutdown('SIGTERM'));
  process.on('SIGINT', () => shutdown('SIGINT'));
  process.on('SIGUSR2', () => {
    reloadAllLogs(registry, log).catch((err) => log.warn({ err: err.message }, 'reopening log files failed'));
  });
  process.on('SIGHUP', () => {
    log.info('SIGHUP: reloading all apps');
    reloadNotice(() => registry.reload('all')).then(
      (r) => log.info({ apps: r.apps.map((a) => ({ app: a.app, ok: a.ok, failed: a.failed?.reason })) }, 'SIGHUP reload finished'),
      (err) => log.error({ err: err.message, code: err.code }, 'SIGHUP reload refused'),
    );
  });
  process.on('uncaughtException', (err) => log.fatal({ err }, 'uncaught exception (contained)'));
  process.on('unhandledRejection', (err) => log.error({ err }, 'unhandled rejection (contained)'));
}

// Run as a script (`node lib/master/core/daemon.js`, how `super start` launches it detached).
if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) startDaemon();
