// Resurrect's configs: each saved app normalized again through lib/config from where it
// came from (its ecosystem file and --env), with what commands changed while it ran (the
// scale count, watch turned on or off) laid over. Only when that file is gone, invalid or
// no longer names the app is the config saved in the dump used, normalized through
// lib/config too, and the answer says so.
import { SuperError } from '../../errors.js';
import { deepFreeze } from '../../config/deep-freeze.js';
import { checkDumpApps } from '../../dump-file.js';

/**
 * @param {{file: string, apps: import('../../dump-file.js').DumpEntry[]}} dump  as readDump returns it
 * @param {import('../../config/index.js').LoadOptions} options  for lib/config (the daemon's CPUs, home)
 * @returns {Promise<{entries: {config: import('../../config/index.js').AppConfig, clientEnv: Record<string,string>, source?: object, id?: number, scaledFrom?: number|null}[], warnings: string[]}>}
 *   entries for the registry's startConfigs; warnings: each app started from its snapshot, or not at all
 */
export async function reviveApps(dump, options) {
  const { loadEcosystemOffThread, loadSavedAppOffThread, workLimits } = await import('../../config/index.js');
  const { keptCount } = await import('../../config/autoscale.js');
  // A dump is a file like any other: it asks for no more apps or workers than a file may.
  const limits = workLimits();
  checkDumpApps(dump, limits.apps);
  const files = new Map(); // file + env -> the loaded ecosystem, or why it cannot be used
  const entries = [];
  const warnings = [];
  for (const { config: asSaved, clientEnv = {}, source, id, scaled_from: scaledFrom } of dump.apps) {
    const saved = withinLimit(asSaved, limits, dump.file, warnings);
    let config = null;
    let held = null;
    let why = 'it was not started from an ecosystem file';
    if (source?.file) {
      const key = `${source.file}\0${source.env ?? ''}\0${source.cwd ?? ''}`;
      if (!files.has(key)) files.set(key, await loadEcosystemOffThread(source.file, { ...options, env: source.env, startDir: source.cwd }).catch((err) => err));
      const eco = files.get(key);
      const fresh = eco instanceof Error ? null : eco.apps.find((a) => a.name === saved.name);
      // The saved count, as a reload keeps it (autoscale.js keptCount): within the file's
      // bounds, or while the file says what it said when the app was scaled (a dump without
      // scaled_from, from before it was saved: always).
      if (fresh) {
        config = keptCount(deepFreeze({ ...fresh, watch: saved.watch ?? fresh.watch }), saved.instances, scaledFrom === undefined ? fresh.instances : scaledFrom);
        held = !fresh.autoscale && config.instances !== fresh.instances ? fresh.instances : null;
      } else why = eco instanceof Error ? `${source.file} cannot be used (${reason(eco)})` : `${source.file} no longer names it`;
    }
    if (!config) {
      try {
        config = await loadSavedAppOffThread(saved, dump.file, options);
      } catch (err) {
        warnings.push(`${saved.name} was not started: ${why}, and the config saved in ${dump.file} is not valid either (${reason(err)})`);
        continue;
      }
      warnings.push(`${saved.name} started from the config saved in ${dump.file}: ${why}`);
    }
    entries.push({ config, clientEnv, source, id, scaledFrom: held });
  }
  return { entries, warnings };
}

/** The saved config with its instances lowered to the limit (and a warning) when it asks for more. */
function withinLimit(saved, limits, file, warnings) {
  if (!(saved.instances > limits.instances)) return saved;
  warnings.push(`${saved.name} starts ${limits.instances} instances, not the ${saved.instances} ${file} saved: that is more than the limit of ${limits.instances} (SUPER_MAX_INSTANCES in the daemon's environment)`);
  return { ...saved, instances: limits.instances };
}

/** A load error in one line: the first problem of an E_CONFIG. */
function reason(err) {
  const problems = err instanceof SuperError ? err.details?.problems : null;
  if (!problems?.length) return err.message;
  return problems.length === 1 ? problems[0] : `${problems[0]} (and ${problems.length - 1} more)`;
}
