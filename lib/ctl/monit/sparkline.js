// A one-line chart of recent values: ▁▂▃▄▅▆▇█, scaled to the largest value shown (or to
// `floor`, so a flat 0.2 ms loop does not look like a full-height spike). No value: space.
const BARS = '▁▂▃▄▅▆▇█';

/**
 * @param {(number|null)[]} values  oldest first
 * @param {number} width            characters; the newest values are kept
 * @param {number} [floor]          the scale's top is at least this
 */
export function sparkline(values, width, floor = 0) {
  const shown = values.slice(-width);
  const top = Math.max(floor, ...shown.filter((v) => v !== null && v !== undefined));
  const chars = shown.map((v) => {
    if (v === null || v === undefined) return ' ';
    if (top <= 0) return BARS[0];
    return BARS[Math.min(BARS.length - 1, Math.floor((v / top) * (BARS.length - 1) + 0.5))];
  });
  return chars.join('').padStart(width, ' ');
}
