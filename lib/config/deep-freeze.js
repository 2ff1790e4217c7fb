// A normalized config never changes: whoever needs another one makes a new object
// ({...config, instances}), so a config shared by an app, its slots and a dump cannot be
// changed behind their backs.

/** Freezes `value` and everything reachable from it; returns it. */
export function deepFreeze(value) {
  if (value === null || typeof value !== 'object' || Object.isFrozen(value)) return value;
  Object.freeze(value);
  for (const v of Object.values(value)) deepFreeze(v);
  return value;
}
