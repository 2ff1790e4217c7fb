// Human formats for the CLI's tables.
export function formatDuration(ms) {
  if (!ms) return '0s';
  const s = Math.floor(ms / 1000);
  if (s < 60) return `${s}s`;
  const m = Math.floor(s / 60);
  if (m < 60) return `${m}m`;
  const h = Math.floor(m / 60);
  if (h < 48) return `${h}h`;
  return `${Math.floor(h / 24)}d`;
}

export function formatBytes(n) {
  if (n === null || n === undefined) return '-';
  if (n < 1024) return `${n}B`;
  const units = ['K', 'M', 'G', 'T'];
  let v = n / 1024;
  let i = 0;
  while (v >= 1024 && i < units.length - 1) {
    v /= 1024;
    i++;
  }
  return `${v >= 100 ? v.toFixed(0) : v.toFixed(1)}${units[i]}`;
}

export const formatCpu = (c) => (c === null || c === undefined ? '-' : `${c.toFixed(1)}%`);

/** Plain left-aligned columns; the last column is not padded. */
export function renderTable(headers, rows) {
  const widths = headers.map((h, i) => Math.max(h.length, ...rows.map((r) => String(r[i]).length)));
  const line = (cells) => cells.map((c, i) => (i === cells.length - 1 ? String(c) : String(c).padEnd(widths[i]))).join('  ');
  return [line(headers), ...rows.map(line)].join('\n');
}

/** Milliseconds, short: 0.4ms, 12ms, 1.5s. */
export function formatMs(ms) {
  if (ms === null || ms === undefined) return '-';
  if (ms < 10) return `${ms.toFixed(1)}ms`;
  if (ms < 1000) return `${Math.round(ms)}ms`;
  return `${(ms / 1000).toFixed(1)}s`;
}

/** How a connection path (lib/connection-path-choice.js) reads: `describe` and `check` show it. */
const CONNECTION_PATHS = {
  'round-robin': 'round-robin through the daemon',
  os: 'one shared socket, each worker accepts (SCHED_NONE)',
  reuseport: 'reusePort, a socket per worker, kernel-balanced',
};

/**
 * @param {{path: string, why: string}} connections
 * @returns {string}
 */
export const formatConnections = ({ path, why }) => `${CONNECTION_PATHS[path] ?? path} (${why})`;
