// Small statistics helpers. Medians everywhere: on this noisy shared 2-vCPU machine one
// slow round must not drag a row the way it would drag a mean.

export function median(xs) {
  const v = xs.filter(Number.isFinite).sort((a, b) => a - b);
  if (!v.length) return NaN;
  const m = v.length >> 1;
  return v.length % 2 ? v[m] : (v[m - 1] + v[m]) / 2;
}

export const min = (xs) => Math.min(...xs);
export const max = (xs) => Math.max(...xs);
export const sum = (xs) => xs.reduce((a, b) => a + b, 0);

/** a / b, or NaN when b is not a usable number. */
export const ratio = (a, b) => (Number.isFinite(a) && Number.isFinite(b) && b !== 0 ? a / b : NaN);

/** Fixed decimals, thousands separated with "," (so 41235.2 -> "41,235"). */
export function fmt(x, decimals = 0) {
  if (!Number.isFinite(x)) return 'n/a';
  return x.toLocaleString('en-US', { minimumFractionDigits: decimals, maximumFractionDigits: decimals });
}

/** A markdown table from a header row and body rows (cells already formatted). */
export function table(header, rows) {
  const line = (cells) => `| ${cells.join(' | ')} |`;
  return [line(header), line(header.map(() => '---')), ...rows.map(line)].join('\n');
}
