// What `super check` shows of a loaded ecosystem: each app as superd will run it, with
// the env's secret values masked (lib/mask-secrets.js, as `describe` and `env` show them),
// and the warnings of the file and of a start (those that need no running daemon). For a
// cluster-mode app, the way its connections would take (lib/connection-path-choice.js, the
// decision `super describe` shows), decided on this process's Node and this kernel, as for a
// daemon `super start` would start now (a running one keeps the scheduling its first start fixed).
import { maskEnv } from '../mask-secrets.js';
import { unmappedWarning } from '../config/check-affinity.js';
import { countsCpus } from '../config/instances.js';
import { slotFiles } from '../logs/settings.js';
import { choosePath, reusePortSupport } from '../connection-path-choice.js';

/** Resolved keys `--json` shows as they are (test/pm2/oracle.test.js compares them with PM2's). */
const AS_IS = ['watch', 'ignore_watch', 'watch_delay', 'autorestart', 'max_restarts', 'min_uptime', 'restart_delay', 'exp_backoff_restart_delay',
  'kill_timeout', 'listen_timeout', 'wait_ready', 'ready_on', 'max_memory_restart', 'cron_restart', 'instance_var', 'increment_var', 'stop_exit_codes',
  'merge_logs', 'log_date_format', 'log_type', 'time', 'disable_logs', 'source_map_support', 'shutdown_with_message'];

/**
 * @param {import('../config/index.js').Ecosystem} eco
 * @returns {{ file: string, apps: object[], warnings: string[] }}
 */
export function checkView(eco) {
  const scheduling = eco.daemon?.scheduling ?? 'auto';
  const support = reusePortSupport();
  return {
    file: eco.file,
    apps: eco.apps.map((app) => ({
      name: app.name,
      namespace: app.namespace,
      script: app.script,
      args: app.args,
      interpreter: app.node_path ?? app.interpreter,
      node_args: app.node_args,
      exec_mode: app.exec_mode,
      instances: app.instances,
      instances_spec: app.instances_spec,
      autoscale: app.autoscale,
      // How many CPUs `max` counted, when the cgroup's CPU limit set it (lib/cgroup-cpu.js).
      cpus_note: countsCpus(app.instances_spec) && eco.cpu_note ? eco.cpu_note : undefined,
      cwd: app.cwd,
      autostart: app.autostart,
      env: maskEnv(app.env),
      ...Object.fromEntries(AS_IS.filter((k) => app[k] !== undefined).map((k) => [k, app[k]])),
      // The files each slot writes ({out, err}; one entry when the slots share them).
      log_files: app.logs ? logFiles(app) : undefined,
      connections: app.exec_mode === 'cluster' ? choosePath(app, scheduling, { support }) : undefined,
    })),
    warnings: [...eco.warnings, ...eco.apps.map(unmappedWarning).filter((w) => w !== null),
      ...(scheduling === 'reuseport' && !support.ok ? [`scheduling: reuseport: a daemon started on this Node refuses it (E_REUSEPORT_UNSUPPORTED): ${support.why}`] : [])],
  };
}

function logFiles(app) {
  if (app.logs.disabled) return [];
  const slots = app.logs.perSlot ? app.instances : 1;
  return Array.from({ length: slots }, (_, i) => slotFiles(app.logs, i));
}
