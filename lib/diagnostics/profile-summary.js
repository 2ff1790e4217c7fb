// The terminal summary of a CPU profile: the functions that spent the most time
// themselves (self time), with file:line. Pure: no I/O.

import { indexProfile, selfTimes, functionName, position, frameLocation } from './cpu-profile.js';

/** Longest function name / location printed before it is cut with an ellipsis. */
const MAX_NAME = 60;
const MAX_LOCATION = 80;

/**
 * Self time aggregated per function (name + url + line): V8 has one node per call
 * path, so a function called from several places is summed here. The pseudo-frames
 * (idle), (program) and (garbage collector) are rows under those names.
 * @param {object} profile a parsed .cpuprofile
 * @param {{ limit?: number }} [options]
 * @returns {{ functionName: string, url: string, lineNumber: number, columnNumber: number,
 *   selfMs: number, selfPercent: number }[]} lineNumber and columnNumber are 1-based (0 = none)
 */
export function topSelfTime(profile, { limit = 10 } = {}) {
  const { byId } = indexProfile(profile);
  const { selfUs, totalUs } = selfTimes(profile, byId);
  const perFunction = new Map();
  for (const [id, us] of selfUs) {
    const frame = byId.get(id).callFrame;
    const name = functionName(frame);
    const url = String(frame.url ?? '');
    const { lineNumber, columnNumber } = position(frame);
    const key = `${name}\n${url}\n${lineNumber}`;
    const row = perFunction.get(key);
    if (row) row.selfUs += us;
    else perFunction.set(key, { functionName: name, url, lineNumber, columnNumber, selfUs: us });
  }
  return [...perFunction.values()]
    .sort((a, b) => b.selfUs - a.selfUs)
    .slice(0, Math.max(0, limit))
    .map(({ selfUs: us, ...row }) => ({
      ...row,
      selfMs: us / 1000,
      selfPercent: totalUs > 0 ? (us / totalUs) * 100 : 0,
    }));
}

/**
 * A small aligned table of topSelfTime's rows: self ms, %, function, file:line
 * (relative to cwd). Names come from the profiled app: control characters are
 * replaced so they cannot drive the terminal.
 */
export function formatTopSelfTime(rows, { cwd = process.cwd() } = {}) {
  const table = rows.map((row) => [
    row.selfMs.toFixed(1),
    `${row.selfPercent.toFixed(1)}%`,
    printable(row.functionName, MAX_NAME),
    printable(frameLocation(row.url, row.lineNumber, cwd), MAX_LOCATION),
  ]);
  const header = ['self ms', 'self %', 'function', 'location'];
  const widths = header.map((title, col) => Math.max(title.length, ...table.map((cells) => cells[col].length)));
  const line = ([ms, percent, name, location]) =>
    [ms.padStart(widths[0]), percent.padStart(widths[1]), name.padEnd(widths[2]), location].join('  ').trimEnd();
  return [line(header), ...table.map(line)].join('\n');
}

function printable(text, max) {
  const clean = String(text).replace(/[\u0000-\u001f\u007f-\u009f\u2028\u2029]/g, '?');
  return clean.length > max ? `${clean.slice(0, max - 1)}…` : clean;
}
