// The soak's closing report: markdown tables from what the driver collected.
import { median, fmt, table } from '../stats.js';

/** Least-squares slope of ys over xs (same units per x unit), NaN with fewer than 3 points. */
export function slope(xs, ys) {
  const n = xs.length;
  if (n < 3) return NaN;
  const mx = xs.reduce((a, b) => a + b, 0) / n;
  const my = ys.reduce((a, b) => a + b, 0) / n;
  let num = 0;
  let den = 0;
  for (let i = 0; i < n; i++) {
    num += (xs[i] - mx) * (ys[i] - my);
    den += (xs[i] - mx) ** 2;
  }
  return den ? num / den : NaN;
}

/** A fit over less time than this (minutes) says nothing: a fresh daemon's RSS still settles. */
export const MIN_FIT_MIN = 2;

/** RSS growth below this (MB per minute, fitted) is called flat. */
export const FLAT_MB_PER_MIN = 0.5;

/**
 * RSS per minute and its fitted slope, and the same for the daemon's live JS heap (after a
 * full GC; its lowest sample each minute). The run fails on a growing live heap; RSS that
 * steps up under load while the live heap is flat is the allocator keeping freed memory,
 * reported, not failed.
 * @param {{t: number, pid: number, kb: number, heapKb?: number|null}[]} samples  t: ms since the soak began
 * @param {number} since  fit only samples at or after this t (the second daemon's warm-up done)
 * @param {number} [until]  and before this t (a third daemon is another process)
 */
export function rssSummary(samples, since, until = Infinity) {
  const perMinute = new Map();
  for (const s of samples) {
    const m = Math.floor(s.t / 60000);
    const e = perMinute.get(m) ?? { kb: [], heap: [], pids: new Set() };
    e.kb.push(s.kb);
    if (s.heapKb) e.heap.push(s.heapKb);
    e.pids.add(s.pid);
    perMinute.set(m, e);
  }
  const mb = (kb) => kb / 1024;
  const rows = [...perMinute].map(([m, e]) => [
    `${m}-${m + 1}`,
    [...e.pids].join(', '),
    String(e.kb.length),
    fmt(mb(Math.min(...e.kb)), 1),
    fmt(mb(median(e.kb)), 1),
    fmt(mb(Math.max(...e.kb)), 1),
    e.heap.length ? fmt(mb(Math.min(...e.heap)), 1) : '-',
  ]);
  const fitted = samples.filter((s) => s.t >= since && s.t < until);
  const perMin = slope(fitted.map((s) => s.t / 60000), fitted.map((s) => mb(s.kb)));
  const spanMin = fitted.length ? (fitted.at(-1).t - fitted[0].t) / 60000 : 0;
  let verdict;
  if (!Number.isFinite(perMin) || spanMin < MIN_FIT_MIN) verdict = `too short to judge: ${fmt(spanMin, 1)} min of samples after the daemon restart (a fit needs ${MIN_FIT_MIN} min; run --minutes 10)`;
  else if (perMin < FLAT_MB_PER_MIN) verdict = `no growth trend: fitted slope ${fmt(perMin, 2)} MB/min over the ${fmt(spanMin, 1)} min after the daemon restart (${fitted.length} samples; flat means < ${FLAT_MB_PER_MIN} MB/min)`;
  else verdict = `rising: fitted slope ${fmt(perMin, 2)} MB/min over the ${fmt(spanMin, 1)} min after the daemon restart (${fitted.length} samples; flat means < ${FLAT_MB_PER_MIN} MB/min)`;
  // Each whole minute's lowest live-heap sample, of one daemon, in the fit range.
  const floors = [...perMinute].filter(([m, e]) => e.heap.length && e.pids.size === 1 && m * 60000 >= since && (m + 1) * 60000 <= until)
    .map(([m, e]) => ({ m: m + 0.5, mb: mb(Math.min(...e.heap)) }));
  const heapPerMin = slope(floors.map((f) => f.m), floors.map((f) => f.mb));
  let heapVerdict;
  if (!Number.isFinite(heapPerMin)) heapVerdict = `too short to judge: ${floors.length} whole minute(s) of heap samples after the daemon restart (a fit needs 3)`;
  else heapVerdict = `${heapPerMin < FLAT_MB_PER_MIN ? 'no growth trend' : 'GROWING'}: the live heap's fitted slope (after full GCs) is ${fmt(heapPerMin, 2)} MB/min over ${floors.length} minutes (${floors.map((f) => fmt(f.mb, 1)).join(', ')} MB; flat means < ${FLAT_MB_PER_MIN} MB/min)`;
  return {
    table: table(['minute', 'daemon pid', 'samples', 'RSS min MB', 'RSS median MB', 'RSS max MB', 'live JS heap MB (after GC)'], rows),
    slopeMbPerMin: perMin,
    verdict,
    heapVerdict,
    heapGrowing: Number.isFinite(heapPerMin) && heapPerMin >= FLAT_MB_PER_MIN,
  };
}

/** @param {Map<string, {requests: number, connects: number, errors: object, conns: Set}>} rows */
export function failureTable(rows, order, explain) {
  const body = [];
  const causes = [...order, ...[...rows.keys()].filter((c) => !order.includes(c))];
  for (const cause of causes) {
    const r = rows.get(cause) ?? { requests: 0, connects: 0, errors: {}, conns: new Set() };
    const errors = Object.entries(r.errors).map(([e, n]) => `${e}: ${n}`).join(', ') || '-';
    body.push([cause, fmt(r.requests), fmt(r.conns.size), fmt(r.connects), errors, explain[cause] ?? '']);
  }
  return table(['cause', 'failed requests', 'on connections', 'failed connects', 'errors', 'why'], body);
}

export { median, fmt, table };
