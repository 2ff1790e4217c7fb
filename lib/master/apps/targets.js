// What the targets of a command name: `all`, an app name, a numeric id (as `super ls`
// shows it), a namespace (the apps whose config.namespace it is), or an ecosystem file
// (its absolute path: the apps started from it). Several targets name the union, in
// registration order; any target that names nothing refuses the whole command.
import { SuperError } from '../../errors.js';
import { appIds } from './app-ids.js';

/**
 * @param {Map<string, import('./app.js').App>} apps  the registry's apps, in registration order
 * @param {string|string[]} target
 * @returns {import('./app.js').App[]}
 */
export function resolveTargets(apps, target) {
  const wanted = new Set();
  for (const t of Array.isArray(target) ? target : [target]) {
    const hit = resolveOne(apps, t);
    if (!hit.length && t !== 'all') throw notFound(apps, t);
    for (const app of hit) wanted.add(app);
  }
  return [...apps.values()].filter((app) => wanted.has(app));
}

function resolveOne(apps, t) {
  if (t === 'all') return [...apps.values()];
  if (apps.has(t)) return [apps.get(t)];
  if (/^\d{1,9}$/.test(t)) {
    const ids = appIds(apps);
    const app = [...apps.values()].find((a) => ids.get(a.name) === Number(t));
    return app ? [app] : [];
  }
  if (t.startsWith('/')) return [...apps.values()].filter((a) => a.source?.file === t);
  return [...apps.values()].filter((a) => a.config.namespace === t);
}

function notFound(apps, t) {
  const known = [...apps.keys()];
  const what = /^\d+$/.test(t) ? `no app with id ${t}` : t.startsWith('/') ? `no app was started from ${t}` : `no app named "${t}"`;
  return new SuperError('E_APP_NOT_FOUND', `${what}${known.length ? `; known apps: ${known.join(', ')}` : '; no apps are running'}`);
}
