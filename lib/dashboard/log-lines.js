// The log lines a page shows, each with when it was written: the time the line carries (a
// date at its start, as `time: true` or log_date_format write it, or the time field of a
// JSON line), else for a line that comes live the time it came (within a second of its
// writing). A line read from a file that carries no time has none (t: null): the page
// says "earlier" rather than pass an old failure off as current.
//
// An entry: {host, app, slot, stream, text, t}, t in epoch ms or null.

const MAX_TEXT = 4096;
// `<date>: ` as the agent writes it (lib/worker/line-formats.cjs), the date ISO 8601 or a
// log_date_format of that order: 2026-01-31T12:00:00.123Z, 2026-01-31 12:00:00 +01:00
const DATE_PREFIX = /^(\d{4}-\d\d-\d\d)[T ](\d\d:\d\d:\d\d(?:[.,]\d{1,9})?) ?(Z|[+-]\d\d:?\d\d)?:?(?: |$)/;

/**
 * When `text` says it was written, and the text without a leading date (the page shows
 * the time beside it): {t: epoch ms | null, text}.
 */
export function lineTime(text) {
  const m = DATE_PREFIX.exec(text);
  if (m) {
    const t = Date.parse(`${m[1]}T${m[2].replace(',', '.')}${m[3] ?? ''}`);
    if (Number.isFinite(t)) return { t, text: text.slice(m[0].length) };
  }
  if (text.charCodeAt(0) === 0x7b && text.length <= MAX_TEXT) {
    try {
      // log_type json (pino's time, msg) or pm2-json (timestamp, message)
      const o = JSON.parse(text);
      const v = o?.time ?? o?.timestamp;
      const t = typeof v === 'number' ? v : typeof v === 'string' ? Date.parse(v) : NaN;
      const msg = typeof o?.msg === 'string' ? o.msg : typeof o?.message === 'string' ? o.message : text;
      if (Number.isFinite(t)) return { t, text: msg };
    } catch {
      // not JSON after all
    }
  }
  return { t: null, text };
}

/** A line that came live (a "log" event): its own time, else now. */
export function liveLine(host, { app, slot, stream }, line, now = Date.now()) {
  const { t, text } = lineTime(line.slice(0, MAX_TEXT));
  return { host, app, slot, stream, text, t: t ?? now };
}

/**
 * The last `max` lines of a host's files (a `logs` answer, lib/ipc/daemon-input.js
 * checkTail), oldest first: dated lines in the order of their times, an undated line
 * (a stack trace) right after the line before it in its file, the lines of a file that
 * carries no time before all others (in their order).
 * @returns {object[]} entries
 */
export function tailLines(host, files, max) {
  const all = [];
  for (const f of files) {
    let order = -Infinity; // the time the lines of this file sort at
    for (const line of f.lines) {
      if (!line) continue;
      const { t, text } = lineTime(line.slice(0, MAX_TEXT));
      if (t !== null) order = t;
      all.push({ entry: { host, app: f.app, slot: f.slot, stream: f.stream, text, t }, order, n: all.length });
    }
  }
  all.sort((a, b) => a.order - b.order || a.n - b.n);
  return all.slice(-max).map((x) => x.entry);
}
