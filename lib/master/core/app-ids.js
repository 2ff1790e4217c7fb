// Numeric app ids, as PM2 shows them in its list: an app's id is its registration order in
// this daemon (0, 1, 2, ...), stable while the app is registered and never given to another
// app (a deleted app's id stays unused until the daemon restarts).
const ids = new WeakMap(); // App -> id
const counters = new WeakMap(); // the registry's app Map -> next id

/** The id of every app of `apps` (a name -> App Map in registration order), assigning new ones. */
export function appIds(apps) {
  let next = counters.get(apps) ?? 0;
  for (const app of apps.values()) if (!ids.has(app)) ids.set(app, next++);
  counters.set(apps, next);
  return new Map([...apps.values()].map((app) => [app.name, ids.get(app)]));
}
