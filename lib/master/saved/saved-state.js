// `save` and `resurrect`: the registry's apps <-> the dump file (lib/master/saved/dump.js).
import { writeDump, readDump } from './dump.js';
import { reviveApps } from './revive.js';

/**
 * Saves every app that is not stopped, with its resolved config (instances as scaled now)
 * and the environment it was started with. Stopped apps are left out and reported.
 */
export async function saveApps(registry, settings, { version, force }) {
  const { apps, ...daemon } = registry.daemonState();
  const skipped = apps.filter((a) => a.stopped).map((a) => a.config.name);
  const saved = apps.filter((a) => !a.stopped).map(({ stopped, ...entry }) => entry);
  const out = await writeDump(settings.home, { apps: saved, ...daemon, version }, { force });
  return { ...out, skipped };
}

/**
 * Starts the apps of the dump, each normalized again from its ecosystem file (revive.js);
 * those already running are left alone (and reported).
 */
export async function resurrectApps(registry, settings) {
  const dump = await readDump(settings.home);
  const { entries, warnings } = await reviveApps(dump, settings.loadOptions());
  for (const w of warnings) settings.log.warn({ dump: dump.file }, w);
  const daemon = { scheduling: dump.scheduling, scheduling_set: true, cpu_affinity: dump.daemon_cpu_affinity, metrics: dump.metrics ?? undefined, control: dump.control, from_dump: true };
  const result = await registry.startConfigs(entries, daemon, dump.file);
  return { file: dump.file, ...result, warnings: [...warnings, ...result.warnings] };
}
