// Tells systemd about the daemon's state (sd_notify protocol) when it runs as a
// Type=notify service, i.e. when systemd set NOTIFY_SOCKET.
//
// Node cannot send on a unix datagram socket, so a `systemd-notify` child sends the
// message. Since systemd 246 it waits (sd_notify_barrier) until the manager has read the
// message, so the manager can still attribute it to our unit while the sender lives; the
// unit needs NotifyAccess=all because the sender is a child of the main process
// (config/superd.service.in). No PID file is involved: systemd knows the main PID from
// ExecStart (and MAINPID=), so there is no PID-file race (PM2 #2912).
//
// The unit stays Type=notify with ExecReload=`super reload all` (not Type=notify-reload,
// which needs systemd >= 253; Debian 12 has 252): `systemctl reload` then waits for the
// rolling reload and fails when it fails. The daemon still says RELOADING=1 (with
// MONOTONIC_USEC, which systemd >= 253 asks for) and READY=1 around every reload of all
// apps, however it was asked (ExecReload, SIGHUP).
import { spawn } from 'node:child_process';

/**
 * Sends `fields` (e.g. ['READY=1', 'STATUS=...']) if NOTIFY_SOCKET is set; a no-op
 * otherwise. Never throws and never blocks: failures are logged.
 * @param {string[]} fields
 * @param {import('../../logs/json-logger.js').JsonLogger} [log]
 * @param {NodeJS.ProcessEnv} [env]
 * @param {{quiet?: boolean}} [o]  quiet: log failures only (the watchdog's pings)
 * @returns {Promise<boolean>} whether systemd-notify reported success
 */
export function sdNotify(fields, log, env = process.env, { quiet = false } = {}) {
  if (!env.NOTIFY_SOCKET) return Promise.resolve(false);
  return new Promise((resolve) => {
    let child;
    try {
      child = spawn('systemd-notify', fields, { stdio: ['ignore', 'ignore', 'pipe'], env });
    } catch (err) {
      log?.error({ err: err.message }, 'systemd-notify could not be started');
      resolve(false);
      return;
    }
    let stderr = '';
    child.stderr.on('data', (d) => (stderr += d));
    child.on('error', (err) => {
      log?.error({ err: err.message, fields }, 'systemd-notify could not be started (is systemd installed?)');
      resolve(false);
    });
    child.on('close', (code) => {
      if (code !== 0) log?.error({ code, stderr: stderr.trim(), fields }, 'systemd-notify failed');
      else if (!quiet) log?.info({ fields }, 'told systemd');
      resolve(code === 0);
    });
  });
}

/**
 * WATCHDOG=1 every WATCHDOG_USEC / 2 from a timer of the daemon's event loop, when systemd
 * asks for it (WatchdogSec= in the unit sets WATCHDOG_USEC, and WATCHDOG_PID to the main
 * pid). A stuck loop sends nothing, so systemd kills the daemon (SIGABRT) and restarts it:
 * the daemon is the cluster primary, a stuck one stalls every app's connections.
 * @returns {() => void}  stops the pings
 */
export function startWatchdog(log, env = process.env) {
  const usec = Number(env.WATCHDOG_USEC);
  if (!env.NOTIFY_SOCKET || !(usec > 0)) return () => {};
  if (env.WATCHDOG_PID && Number(env.WATCHDOG_PID) !== process.pid) return () => {};
  let sending = false; // one systemd-notify at a time: a slow one is not stacked on
  const timer = setInterval(() => {
    if (sending) return;
    sending = true;
    sdNotify(['WATCHDOG=1'], log, env, { quiet: true }).finally(() => (sending = false));
  }, Math.max(1, Math.floor(usec / 2000)));
  timer.unref();
  log?.info({ every_ms: Math.floor(usec / 2000) }, 'systemd watchdog: pinging');
  return () => clearInterval(timer);
}

/** CLOCK_MONOTONIC in microseconds (libuv's hrtime reads CLOCK_MONOTONIC on Linux). */
const monotonicUsec = () => process.hrtime.bigint() / 1000n;

/**
 * Wraps reloads of every app so systemd sees RELOADING=1 when the first starts and READY=1
 * when the last in flight ends, in that order (one systemd-notify after the other).
 * @returns {<T>(reload: () => Promise<T>) => Promise<T>}
 */
export function reloadNotices(log, env = process.env) {
  if (!env.NOTIFY_SOCKET) return (reload) => reload();
  let running = 0;
  let queue = Promise.resolve();
  const send = (fields) => {
    queue = queue.then(() => sdNotify(fields, log, env)).then(() => {});
  };
  return async (reload) => {
    if (running++ === 0) send(['RELOADING=1', `MONOTONIC_USEC=${monotonicUsec()}`, 'STATUS=reloading every app']);
    try {
      return await reload();
    } finally {
      if (--running === 0) send(['READY=1', 'STATUS=reloaded']);
    }
  };
}
