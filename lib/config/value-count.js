// A YAML alias (*name) repeats an anchored node by reference: nine aliases of nine aliases
// of ... a list (a "billion laughs") are a few hundred bytes of text, and 10^9 values for
// every walk that follows (the schema check, normalization, a copy sent to the daemon).
// The parsed data is counted, each reference as often as it is reached, and refused past
// a bound that a file without aliases cannot reach (MAX_FILE_BYTES of text hold fewer
// values); the count stops at the bound, so it costs little.

/** The most values (scalars, lists, maps) an ecosystem may hold once its aliases are expanded. */
export const MAX_VALUES = 1_000_000;

/** Whether `data` holds more than `max` values, counting a shared node each time it is reached. */
export function holdsMoreValues(data, max = MAX_VALUES) {
  const stack = [data];
  for (let count = 0; stack.length > 0; count++) {
    if (count === max) return true;
    const v = stack.pop();
    if (v !== null && typeof v === 'object') for (const key in v) stack.push(v[key]);
  }
  return false;
}
