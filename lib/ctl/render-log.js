// How `super logs` and `super run` show a line: `app#slot | text` (stdout) or
// `app#slot ! text` (stderr), coloured when colorWanted says so. A line written with
// log_type json (pino's fields) or pm2-json (PM2's) is shown as `time msg`, with the slot it
// carries; --json gives {app, slot, stream, time?, msg}; --raw the line as written.
const PALETTE = [36, 32, 35, 34, 33, 96, 92, 95];

/**
 * Colour on a terminal; FORCE_COLOR (anything but 0/false) forces it, NO_COLOR turns it off
 * (FORCE_COLOR wins, as in Node).
 */
export function colorWanted(stream, env = process.env) {
  const force = env.FORCE_COLOR;
  if (force !== undefined && force !== '') return force !== '0' && force !== 'false';
  return Boolean(stream.isTTY) && !env.NO_COLOR;
}

/** What a JSON line of ours says: {time (epoch ms), msg, slot}, or null for any other line. */
function parseOurs(line) {
  if (line.charCodeAt(0) !== 0x7b) return null;
  let o;
  try {
    o = JSON.parse(line);
  } catch {
    return null;
  }
  if (o === null || typeof o !== 'object') return null;
  if (typeof o.msg === 'string' && (typeof o.time === 'number' || typeof o.time === 'string')) {
    return { time: typeof o.time === 'number' ? o.time : Date.parse(o.time), msg: o.msg, slot: o.slot };
  }
  if (typeof o.message === 'string' && typeof o.timestamp === 'string' && 'app_name' in o) {
    return { time: Date.parse(o.timestamp), stamp: o.timestamp, msg: o.message, slot: o.process_id };
  }
  return null;
}

/**
 * @param {{json?: boolean, raw?: boolean, color?: boolean}} o
 * @returns {((app: string, slot: number|null, stream: string, line: string, readAt?: number, earlier?: boolean) => string)
 *   & {note: (text: string) => string}}
 *   one log line -> the text to print (with its newline); readAt: when a followed line was
 *   read, its time in --json when the line carries none; earlier: written before the app's
 *   current workers started (--json says so). note: a line of ours between them (dim; none
 *   in --json and --raw, which print only the app's lines)
 */
export function makeRenderer({ json, raw, color }) {
  if (raw) return Object.assign((app, slot, stream, line) => `${line}\n`, { note: () => '' });
  const paint = (code, s) => (color ? `\u001b[${code}m${s}\u001b[0m` : s);
  const hue = (name) => {
    let h = 0;
    for (const ch of name) h = (h * 31 + ch.charCodeAt(0)) >>> 0;
    return PALETTE[h % PALETTE.length];
  };

  const note = (text) => (json ? '' : `${paint(2, text)}\n`);
  return Object.assign(render, { note });

  function render(app, slot, stream, line, readAt, earlier = false) {
    const ours = parseOurs(line);
    const msg = ours ? ours.msg : line;
    if (ours && slot === null && Number.isInteger(ours.slot)) slot = ours.slot;
    const time = ours && Number.isFinite(ours.time) ? ours.time : readAt;
    if (json) return `${JSON.stringify({ app, slot, stream, ...(time === undefined ? {} : { time }), msg, ...(earlier ? { earlier } : {}) })}\n`;
    const who = slot === null ? app : `${app}#${slot}`;
    const sep = stream === 'err' ? paint(31, '!') : '|';
    const stamp = ours ? (ours.stamp ?? (Number.isFinite(ours.time) ? new Date(ours.time).toISOString() : null)) : null;
    const text = stamp ? `${stamp} ${msg}` : msg;
    return `${paint(hue(app), who)} ${sep} ${stream === 'err' ? paint(31, text) : text}\n`;
  }
}

/**
 * How many of a log tail's first lines (`f.lines`, from the daemon: untrusted) were written
 * before the app's current workers started, and that start as HH:MM:SS; {earlier: 0} when
 * the daemon says none, or says it in a shape that does not hold.
 * @param {{earlier?: unknown, started?: unknown}} f
 * @returns {{earlier: number, at?: string}}
 */
export function earlierLines(f) {
  if (!(Number.isSafeInteger(f.earlier) && Number(f.earlier) > 0 && Number.isFinite(f.started))) return { earlier: 0 };
  return { earlier: Number(f.earlier), at: new Date(Number(f.started)).toTimeString().slice(0, 8) };
}
