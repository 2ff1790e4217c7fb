// Tells systemd about the daemon's state (sd_notify protocol) when it runs as a
// Type=notify service, i.e. when systemd set NOTIFY_SOCKET.
//
// Node cannot send on a unix datagram socket, so a `systemd-notify` child sends the
// message. Since systemd 246 it waits (sd_notify_barrier) until the manager has read the
// message, so the manager can still attribute it to our unit while the sender lives; the
// unit needs NotifyAccess=all because the sender is a child of the main process
// (config/superd.service.in). No PID file is involved: systemd knows the main PID from
// ExecStart (and MAINPID=), so there is no PID-file race (PM2 #2912).
import { spawn } from 'node:child_process';

/**
 * Sends `fields` (e.g. ['READY=1', 'STATUS=...']) if NOTIFY_SOCKET is set; a no-op
 * otherwise. Never throws and never blocks: failures are logged.
 * @param {string[]} fields
 * @param {import('pino').Logger} [log]
 * @returns {Promise<boolean>} whether systemd-notify reported success
 */
export function sdNotify(fields, log, env = process.env) {
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
      if (code === 0) log?.info({ fields }, 'told systemd');
      else log?.error({ code, stderr: stderr.trim(), fields }, 'systemd-notify failed');
      resolve(code === 0);
    });
  });
}
