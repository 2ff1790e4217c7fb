// What a start from a file does to the file's apps that were running already.
// `super start <file> --env <name>`: its env_<name> block applies now, through a rolling
// reload (never by a restart). `super startOrReload <file>` / `startOrRestart` (PM2's, and
// `super reload|restart <file>`): every one is reloaded or restarted with the file's config.
// The registry sets the apps' source for the reload and puts it back if the reload is
// refused (AppRegistry#reload overrides).
import { fileSource } from '../apps/index.js';

/**
 * After `start <file> --env <name>`: the running apps whose config that env changes are
 * reloaded from the file with it. Returns the reload's outcome, or null when none changed.
 * @param {import('../apps/registry.js').AppRegistry} registry
 */
export async function applyEnvToRunning(registry, { file, env, cwd, changed, progress }) {
  if (env === undefined || !changed.length) return null;
  return registry.reload(changed.map((c) => c.name), { progress, overrides: { source: fileSource(file, env, cwd) } });
}

/**
 * After `start <file>` with `then` (PM2's startOrReload / startOrRestart): the apps of the
 * file that were running (`running`; those that were not, the start started) are reloaded
 * (rolling) or restarted, every one, with the file's config and --env block; their reloads
 * re-read this file from then on. Returns what to add to the start's result.
 * @param {import('../apps/registry.js').AppRegistry} registry
 * @param {{file: string, env?: string, cwd?: string, then: 'reload'|'restart'}} a
 * @param {{running: string[], failed: object[], warnings: string[]}} result  the start's
 */
export async function refreshRunning(registry, { file, env, cwd, then }, result, progress) {
  if (!result.running.length) return then === 'reload' ? { reloaded: [] } : { restarted: [] };
  const source = fileSource(file, env, cwd);
  if (then === 'reload') return { reloaded: (await registry.reload(result.running, { progress, overrides: { source } })).apps };
  const restart = await registry.restart(result.running, { source });
  return { restarted: restart.apps, failed: [...result.failed, ...restart.failed], warnings: [...result.warnings, ...restart.warnings] };
}
