// Human durations and sizes of the ecosystem file (`5s`, `300M`).
// The grammars live here once; config/schema.json carries the same patterns
// (test/config/units.test.js checks that they stay equal).

/** Pattern of a duration string: a number and an optional unit (ms, s, m, h; bare = ms). */
export const DURATION_PATTERN = '^\\s*(\\d+(\\.\\d+)?)\\s*(ms|s|m|h)?\\s*$';
/** Pattern of a size string: a number, an optional K/M/G/T (binary, any case), an optional B. */
export const SIZE_PATTERN = '^\\s*(\\d+(\\.\\d+)?)\\s*(([kKmMgGtT])[iI]?)?[bB]?\\s*$';

const DURATION_RE = new RegExp(DURATION_PATTERN);
const SIZE_RE = new RegExp(SIZE_PATTERN);
const MS_PER = { ms: 1, s: 1000, m: 60_000, h: 3_600_000 };
// Binary units, as PM2's max_memory_restart: 1K = 1024 bytes.
const BYTES_PER = { '': 1, k: 1024, m: 1024 ** 2, g: 1024 ** 3, t: 1024 ** 4 };

/** setTimeout's bound: Node sets a longer delay to 1 ms (and warns). */
export const MAX_TIMER_MS = 2 ** 31 - 1;

/**
 * The problem with a duration written `written` that is `ms` long, when no timer can wait
 * that long (every duration of the file ends up in one); null when it fits.
 * @param {unknown} written  @param {number} ms
 */
export function tooLongForTimer(written, ms) {
  return ms > MAX_TIMER_MS ? `${written} is longer than ${MAX_TIMER_MS} ms (about 24.8 days), the longest timer Node can set; use a shorter duration` : null;
}

/**
 * Parse a duration into milliseconds.
 * @param {unknown} v  a finite number >= 0 (milliseconds) or a string like `500ms`, `5s`, `1.5s`, `2m`, `1h`, `250`
 * @returns {number|undefined} whole milliseconds (rounded), or `undefined` when `v` is not a duration
 */
export function parseDuration(v) {
  if (typeof v === 'number') return Number.isFinite(v) && v >= 0 ? Math.round(v) : undefined;
  if (typeof v !== 'string') return undefined;
  const m = DURATION_RE.exec(v);
  if (!m) return undefined;
  return Math.round(Number(m[1]) * MS_PER[m[3] ?? 'ms']);
}

/**
 * Parse a size into bytes (binary units, case-insensitive: `512K`, `300M`, `1G`, `10MB`, `1.5g`, `2048`).
 * @param {unknown} v  a finite number >= 0 (bytes) or a size string
 * @returns {number|undefined} whole bytes (rounded), or `undefined` when `v` is not a size
 */
export function parseSize(v) {
  if (typeof v === 'number') return Number.isFinite(v) && v >= 0 ? Math.round(v) : undefined;
  if (typeof v !== 'string') return undefined;
  const m = SIZE_RE.exec(v);
  if (!m) return undefined;
  return Math.round(Number(m[1]) * BYTES_PER[(m[4] ?? '').toLowerCase()]);
}
