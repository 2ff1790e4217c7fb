// `save` and `resurrect`: the supervisor's apps <-> the dump file (lib/master/saved/dump.js).
import { writeDump, readDump } from './dump.js';
import { reviveApps } from './revive.js';
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
  const metrics = supervisor.monitor?.settings ?? null;
  const control = supervisor.control?.settings ?? null;
  const out = await writeDump(supervisor.home, { apps: saved, scheduling: supervisor.schedulingName, daemon_cpu_affinity: daemonCpus, metrics, control, version }, { force });
  return { ...out, skipped };
}

/**
 * Starts the apps of the dump, each normalized again from its ecosystem file (revive.js);
 * those already running are left alone (and reported).
 */
export async function resurrectApps(supervisor) {
  const dump = await readDump(supervisor.home);
  const { entries, warnings } = await reviveApps(dump, { allowedCpus: supervisor.daemonPolicy.allowed, home: supervisor.home, ...supervisor.loadDefaults });
  for (const w of warnings) supervisor.log.warn({ dump: dump.file }, w);
  const daemon = { scheduling: dump.scheduling, scheduling_set: true, cpu_affinity: dump.daemon_cpu_affinity, metrics: dump.metrics ?? undefined, control: dump.control, from_dump: true };
  const result = await supervisor.startConfigs(entries, daemon, dump.file);
  return { file: dump.file, ...result, warnings: [...warnings, ...result.warnings] };
}
