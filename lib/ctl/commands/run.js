// super run <file> [--env name] [--only a,b] [--json]: superd in the foreground, for
// containers. No detached daemon: this process is the daemon (its control socket works as
// usual, so `docker exec ... super ls` attaches).
//
//   PID 1?  -> re-run under `tini -s`, which reaps orphans (lib/ctl/pid1.js)
//   bad file -> E_CONFIG, exit 2, nothing started
//   daemon up -> log printer child follows every app's output to stdout/stderr (per-slot
//                files unless the file sets merge_logs, so each line says app#slot; files
//                capped at 10 MiB + one rotated file unless the file sets a size: the
//                container's writable layer does not fill)
//   apps started; one fails to start -> everything stopped, exit 1
//   SIGTERM / SIGINT -> every app stopped gracefully (after shutdown_delay: 5 s by default
//                       in a Kubernetes pod) -> printer drains -> exit 0 (also
//                       while the apps start: nothing is reported as a start failure)
import path from 'node:path';
import { loadEcosystem } from '../../config/index.js';
import { needsReaper, runUnderReaper, REAPED } from '../pid1.js';
import { startLogPrinter } from '../run-log-printer.js';
import { printError } from '../coded-error.js';
import { startFailure } from '../../worker-failure.js';

/** shutdown_delay of an app that sets none, under `super run` in a Kubernetes pod (docs/operations.md). */
const KUBERNETES_SHUTDOWN_DELAY_MS = 5000;

export default async function run(file, opts = {}) {
  if (needsReaper()) {
    const status = await runUnderReaper(process.argv.slice(1));
    if (status !== null) return status;
  }
  const abs = path.resolve(file);
  const only = opts.only ? opts.only.split(',').map((s) => s.trim()).filter(Boolean) : undefined;
  // Refuse a bad file before a daemon exists (the daemon checks again).
  await loadEcosystem(file, { env: opts.env, only });

  let printer = null;
  const { startDaemon } = await import('../../master/index.js');
  // One log file per worker unless the file says merge_logs: every line printed says app#slot.
  // Files capped unless the file sets log_max_size / logs.max_size.
  // In a Kubernetes pod, a stopping pod leaves the Service's endpoints some seconds after
  // SIGTERM (kube-proxy, ingress controllers, cloud balancers each learn it in their own
  // time): apps serve on, not ready, for shutdown_delay before they drain, unless they say.
  const shutdownDelayDefault = process.env.KUBERNETES_SERVICE_HOST ? KUBERNETES_SHUTDOWN_DELAY_MS : 0;
  const daemon = await startDaemon({ afterStop: () => printer?.drain(), loadDefaults: { mergeLogsDefault: false, capLogs: true, shutdownDelayDefault } });
  const say = (msg) => process.stderr.write(`super run: ${msg}\n`);

  const clientEnv = Object.fromEntries(Object.entries(process.env).filter(([k, v]) => typeof v === 'string' && k !== 'NOTIFY_SOCKET' && k !== REAPED));
  // The printer starts following once the apps are known and before their workers start:
  // their first lines are printed, and lines left by an earlier run are not.
  const beforeStart = async () => {
    printer = await startLogPrinter({ home: daemon.home, json: Boolean(opts.json) });
  };
  let result;
  try {
    result = await daemon.registry.startFromFile({ file: abs, env: opts.env, only, cwd: process.cwd(), clientEnv, beforeStart });
  } catch (err) {
    printError(err, 'super run');
    daemon.shutdown('start failed', err.exitStatus ?? 1);
    return new Promise(() => {});
  }
  // A SIGTERM / SIGINT that came during the start is stopping everything already: the
  // workers it stopped before they were ready are not start failures.
  if (daemon.stopping()) return new Promise(() => {});
  for (const w of result.warnings) say(`warning: ${w}`);
  if (result.failed.length) {
    for (const f of result.failed) printError(startFailure(f, '; stopping everything'), 'super run');
    daemon.shutdown('an app failed to start', 1);
  } else {
    say(`${result.started.join(', ')} online (pid ${process.pid}, SUPER_HOME ${daemon.home}); SIGTERM or Ctrl-C stops`);
  }
  return new Promise(() => {}); // the daemon exits the process (shutdown)
}
