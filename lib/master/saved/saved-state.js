// `save` and `resurrect`: the supervisor's apps <-> the dump file (lib/master/saved/dump.js).
import { writeDump, readDump } from './dump.js';
import { WORKER_STATES as S } from '../core/states.js';

/**
 * Saves every app that is not stopped, with its resolved config (instances as scaled now)
 * and the environment it was started with. Stopped apps are left out and reported.
 */
export async function saveApps(supervisor, { version, force }) {
  const saved = [];
  const skipped = [];
  for (const app of supervisor.apps.values()) {
    if (app.status === S.STOPPED) {
      skipped.push(app.name);
      continue;
    }
    const instances = app.slots.length || app.config.instances;
    saved.push({ config: { ...app.config, instances }, clientEnv: app.clientEnv, source: app.source ?? undefined });
  }
  const daemonCpus = supervisor.daemonPolicy.pinnedTo;
  const metrics = supervisor.metrics.settings;
  const control = supervisor.control?.settings ?? null;
  const out = await writeDump(supervisor.home, { apps: saved, scheduling: supervisor.schedulingName, daemon_cpu_affinity: daemonCpus, metrics, control, version }, { force });
  return { ...out, skipped };
}

/** Starts the apps of the dump; those already running are left alone (and reported). */
export async function resurrectApps(supervisor) {
  const dump = await readDump(supervisor.home);
  const daemon = { scheduling: dump.scheduling, scheduling_set: true, cpu_affinity: dump.daemon_cpu_affinity, metrics: dump.metrics ?? undefined, control: dump.control, from_dump: true };
  const result = await supervisor.startConfigs(dump.apps.map((e) => ({ config: e.config, clientEnv: e.clientEnv ?? {}, source: e.source })), daemon, dump.file);
  return { file: dump.file, ...result };
}
