// Text that came from a file or a process (an app's name, a key, a path, a message it threw)
// is shown on a terminal: a control character in it would be obeyed there (ESC starts a
// sequence that can retitle the window, clear the screen or fake output; CR rewrites the
// line). Each is shown escaped instead, as JSON writes it: \x1b, \r, \u202e.
import { SuperError } from './errors.js';

// C0 and C1 controls, DEL, the Unicode line and paragraph separators, the bidirectional
// overrides and isolates (which reorder what follows them on the screen), and the invisible
// ones (zero-width space and joiners, the bidi marks, word joiner, BOM: `api` and
// `api\u200b` would look the same).
const UNPRINTABLE = /[\u0000-\u001f\u007f-\u009f\u200b-\u200f\u2028\u2029\u202a-\u202e\u2060-\u2064\u2066-\u2069\ufeff]/g;

const NAMED = { '\n': '\\n', '\r': '\\r', '\t': '\\t' };

/** `text` with every control character escaped, safe to print on one line of a terminal. */
export const printable = (text) => String(text).replace(UNPRINTABLE, (c) => NAMED[c] ?? (c.charCodeAt(0) < 0x100 ? `\\x${hex(c, 2)}` : `\\u${hex(c, 4)}`));

const hex = (c, width) => c.charCodeAt(0).toString(16).padStart(width, '0');

/** A coded error about such text (a file's problems), the same with its lines made printable. */
export function printableError(err) {
  if (!(err instanceof SuperError)) return err;
  const problems = err.details?.problems?.map(printable);
  return new SuperError(err.code, printable(err.message), problems ? { ...err.details, problems } : err.details);
}
