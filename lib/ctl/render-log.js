// How `super logs` shows a line: `app#slot | text` (stdout) or `app#slot ! text` (stderr),
// coloured on a terminal unless NO_COLOR is set. Lines written with log_type: json are
// shown as `ts msg` with the slot they carry.
const PALETTE = [36, 32, 35, 34, 33, 96, 92, 95];

export function makeRenderer({ json, color }) {
  const paint = (code, s) => (color ? `\u001b[${code}m${s}\u001b[0m` : s);
  const hue = (name) => {
    let h = 0;
    for (const ch of name) h = (h * 31 + ch.charCodeAt(0)) >>> 0;
    return PALETTE[h % PALETTE.length];
  };

  /** One log line of (app, slot, stream) -> the text to print (with its newline). */
  return function render(app, slot, stream, line) {
    let msg = line;
    let ts;
    if (line.startsWith('{"ts":')) {
      try {
        const o = JSON.parse(line);
        if (typeof o.msg === 'string') {
          msg = o.msg;
          ts = o.ts;
          if (slot === null && Number.isInteger(o.slot)) slot = o.slot;
        }
      } catch {
        // not one of ours: print as is
      }
    }
    if (json) return `${JSON.stringify({ app, slot, stream, ...(ts ? { ts } : {}), msg })}\n`;
    const who = slot === null ? app : `${app}#${slot}`;
    const sep = stream === 'err' ? paint(31, '!') : '|';
    const text = ts ? `${ts} ${msg}` : msg;
    return `${paint(hue(app), who)} ${sep} ${stream === 'err' ? paint(31, text) : text}\n`;
  };
}
