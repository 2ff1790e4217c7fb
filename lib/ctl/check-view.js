// What `super check` shows of a loaded ecosystem: each app as superd will run it, with
// the env's secret values masked (lib/mask-secrets.js, as `describe` and `env` show them),
// and the warnings of the file and of a start (those that need no running daemon).
import { maskEnv } from '../mask-secrets.js';
import { unmappedWarning } from '../config/check-affinity.js';
import { countsCpus } from '../config/instances.js';

/**
 * @param {import('../config/index.js').Ecosystem} eco
 * @returns {{ file: string, apps: object[], warnings: string[] }}
 */
export function checkView(eco) {
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
    })),
    warnings: [...eco.warnings, ...eco.apps.map(unmappedWarning).filter(Boolean)],
  };
}
