// `super start <file> --env <name>` on a running app: its env_<name> block applies now,
// through a rolling reload (never by a restart). The registry sets the apps' source for the
// reload and puts it back if the reload is refused (AppRegistry#reload overrides).

/**
 * After `start <file> --env <name>`: the running apps whose config that env changes are
 * reloaded from the file with it. Returns the reload's outcome, or null when none changed.
 * @param {import('../apps/registry.js').AppRegistry} registry
 */
export async function applyEnvToRunning(registry, { file, env, cwd, changed, progress }) {
  if (env === undefined || !changed.length) return null;
  return registry.reload(changed.map((c) => c.name), { progress, overrides: { source: cwd === undefined ? { file, env } : { file, env, cwd } } });
}
