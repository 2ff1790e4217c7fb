// The terminal summary of a CPU profile: the functions that spent the most time
// themselves (self time), with file:line, and the line their samples fell on most. Pure:
// no I/O.
//
// V8 charges the time of a function it inlined to the function it inlined it into, but
// keeps the sample's source line right (positionTicks): a hottest line above the first
// line of its function is code inlined from elsewhere, and the row says so.

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
 *   selfMs: number, selfPercent: number, hotLine: number, inlinedHere: boolean }[]}
 *   lineNumber, columnNumber and hotLine (the line with most samples) are 1-based (0 = none);
 *   inlinedHere: hotLine is above the function's first line, so its time is code V8 inlined
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
    let row = perFunction.get(key);
    if (!row) perFunction.set(key, (row = { functionName: name, url, lineNumber, columnNumber, selfUs: 0, lineTicks: new Map() }));
    row.selfUs += us;
    addLineTicks(row.lineTicks, byId.get(id).positionTicks);
  }
  return [...perFunction.values()]
    .sort((a, b) => b.selfUs - a.selfUs)
    .slice(0, Math.max(0, limit))
    .map(({ selfUs: us, lineTicks, ...row }) => {
      const hotLine = hottest(lineTicks);
      return {
        ...row,
        selfMs: us / 1000,
        selfPercent: totalUs > 0 ? (us / totalUs) * 100 : 0,
        hotLine,
        inlinedHere: hotLine > 0 && hotLine < row.lineNumber,
      };
    });
}

const MAX_POSITION_TICKS = 10_000; // read per node: the profile is a worker's output

function addLineTicks(lineTicks, positionTicks) {
  if (!Array.isArray(positionTicks)) return;
  for (const tick of positionTicks.slice(0, MAX_POSITION_TICKS)) {
    if (Number.isInteger(tick?.line) && tick.line > 0 && Number.isFinite(tick.ticks)) lineTicks.set(tick.line, (lineTicks.get(tick.line) ?? 0) + tick.ticks);
  }
}

function hottest(lineTicks) {
  let line = 0;
  let most = 0;
  for (const [l, ticks] of lineTicks) if (ticks > most) [line, most] = [l, ticks];
  return line;
}

/** The note under a table where a row's hottest line is outside its function. */
export const INLINED_NOTE = '* the hottest line is above the function: V8 inlined the function holding that line into this one, and counts its time here';

/**
 * A small aligned table of topSelfTime's rows: self ms, %, function, file:line
 * (relative to cwd), hottest line (`*` and a note when it is inlined code). Names come
 * from the profiled app: control characters are replaced so they cannot drive the terminal.
 */
export function formatTopSelfTime(rows, { cwd = process.cwd() } = {}) {
  const table = rows.map((row) => [
    row.selfMs.toFixed(1),
    `${row.selfPercent.toFixed(1)}%`,
    printable(row.functionName, MAX_NAME),
    printable(frameLocation(row.url, row.lineNumber, cwd), MAX_LOCATION),
    row.hotLine > 0 && row.url ? `${row.hotLine}${row.inlinedHere ? '*' : ''}` : '',
  ]);
  const header = ['self ms', 'self %', 'function', 'location', 'hottest line'];
  const widths = header.map((title, col) => Math.max(title.length, ...table.map((cells) => cells[col].length)));
  /** @param {string[]} cells */
  const line = ([ms, percent, name, location, hot]) =>
    [ms.padStart(widths[0]), percent.padStart(widths[1]), name.padEnd(widths[2]), location.padEnd(widths[3]), hot].join('  ').trimEnd();
  const note = rows.some((row) => row.inlinedHere) ? [INLINED_NOTE] : [];
  return [line(header), ...table.map(line), ...note].join('\n');
}

function printable(text, max) {
  const clean = String(text).replace(/[\u0000-\u001f\u007f-\u009f\u2028\u2029]/g, '?');
  return clean.length > max ? `${clean.slice(0, max - 1)}…` : clean;
}
