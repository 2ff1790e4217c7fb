// Numeric app ids, as PM2 shows them in its list: an app's id is its registration order in
// this daemon (0, 1, 2, ...), stable while the app is registered and never given to another
// app (a deleted app's id stays unused until the daemon restarts). An app whose first start
// failed, and was removed again, used up no id (reclaimIds). An app brought back by
// `super upgrade` or `resurrect` keeps the id it had (assignId), so `super logs 4` means
// the same app before and after.
const ids = new WeakMap(); // App -> id
const counters = new WeakMap(); // the registry's app Map -> next id

/** The id of every app of `apps` (a name -> App Map in registration order), assigning new ones. */
export function appIds(apps) {
  let next = counters.get(apps) ?? 0;
  for (const app of apps.values()) if (!ids.has(app)) ids.set(app, next++);
  counters.set(apps, next);
  return new Map([...apps.values()].map((app) => [app.name, ids.get(app)]));
}

/** The id of `app`, one of `apps`: O(1) once it has one (the monitor asks for every report). */
export function appIdOf(apps, app) {
  return ids.get(app) ?? appIds(apps).get(app.name);
}

/**
 * Gives `app`, just registered, its id: the one it had before (a dump's or an upgrade's)
 * when no other app of `apps` holds it, else the next one. At registration, not at the
 * first `ls`: an app deleted before anyone listed it still used its number.
 * @param {Map<string, object>} apps  the registry's app Map
 * @param {object} app  an App of `apps`
 * @param {*} [id]  a dump's or an upgrade's: checked here
 */
export function assignId(apps, app, id) {
  const taken = (n) => [...apps.values()].some((other) => other !== app && ids.get(other) === n);
  if (Number.isInteger(id) && id >= 0 && id <= MAX_ID && !taken(id)) {
    ids.set(app, id);
    counters.set(apps, Math.max(counters.get(apps) ?? 0, id + 1));
    return;
  }
  appIds(apps);
}

/**
 * After a start: the apps it registered (`fresh`, in order) whose first start failed were
 * removed (`removed`, some of `fresh`); the ones that stay take the lowest of the ids given to them all, and
 * the next app the one after, when nothing was given since. So after a failed start the
 * next app still gets id 0 (a PM2 user types ids).
 * @param {Map<string, object>} apps  the registry's app Map
 * @param {object[]} fresh  @param {object[]} removed
 */
export function reclaimIds(apps, fresh, removed) {
  if (removed.length === 0) return;
  const pool = fresh.map((app) => ids.get(app)).filter(Number.isInteger).sort((a, b) => a - b);
  const stay = fresh.filter((app) => !removed.includes(app));
  for (const app of removed) ids.delete(app);
  stay.forEach((app, i) => ids.set(app, pool[i]));
  const consecutive = pool.length && pool.at(-1) - pool[0] === pool.length - 1;
  if (consecutive && counters.get(apps) === pool.at(-1) + 1) counters.set(apps, pool[stay.length] ?? pool.at(-1) + 1);
}

const MAX_ID = 2 ** 31;
