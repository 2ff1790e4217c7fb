// New environments for running apps, applied by a rolling reload (never by a restart):
//   `super reload <app> --update-env`: the replacements get the caller's environment under
//     the app's own env (the file's env wins, as in PM2);
//   `super start <file> --env <name>` on a running app: its env_<name> block applies now.
import { inheritable } from './registry.js';

/**
 * Reload with the caller's environment. A refused reload (bad file, busy app) leaves every
 * app with the environment it had; an app whose reload replaced no worker keeps its old one.
 */
export async function reloadUpdatingEnv(registry, target, callerEnv, options) {
  const apps = registry.targets(target);
  const before = new Map(apps.map((app) => [app.name, { app, env: app.clientEnv }]));
  const env = inheritable(callerEnv);
  for (const app of apps) if (!app.busy) app.clientEnv = env;
  let data;
  try {
    data = await registry.reload(target, options);
  } catch (err) {
    for (const { app, env: old } of before.values()) app.clientEnv = old;
    throw err;
  }
  for (const r of data.apps) {
    const untouched = r.skipped ? !r.skipped.startsWith('stopped') : !r.ok && !r.replaced?.length;
    if (untouched) before.get(r.app).app.clientEnv = before.get(r.app).env;
  }
  return data;
}

/**
 * After `start <file> --env <name>`: the running apps whose config that env changes are
 * reloaded from the file with it. Returns the reload's outcome, or null when none changed.
 */
export async function applyEnvToRunning(registry, { file, env, changed, progress }) {
  if (env === undefined || !changed.length) return null;
  const apps = changed.map((c) => registry.apps.get(c.name));
  const sources = apps.map((app) => app.source);
  for (const app of apps) app.source = { ...app.source, file, env };
  try {
    return await registry.reload(apps.map((app) => app.name), { progress });
  } catch (err) {
    apps.forEach((app, i) => (app.source = sources[i]));
    throw err;
  }
}
