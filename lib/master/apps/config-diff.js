// Which top-level keys of an app's resolved config differ (for "start" on a running app).
const IGNORED = new Set(['source']);

export function changedKeys(before, after) {
  const keys = new Set([...Object.keys(before), ...Object.keys(after)]);
  return [...keys].filter((k) => !IGNORED.has(k) && JSON.stringify(before[k]) !== JSON.stringify(after[k])).sort();
}
