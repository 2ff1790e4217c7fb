// Collects the problems of one ecosystem file as one-line strings:
//   `<file>:<line>:<col>: <key path>: <what is wrong>; <what to do>`
// and remembers which key paths are already known bad, so later checks do not
// report the same value twice.

/**
 * `['apps', 0, 'env', 'A.B']` -> `apps[0].env["A.B"]`; `[]` -> `top level`.
 * @param {(string|number)[]} segments
 * @returns {string}
 */
export function formatPath(segments) {
  if (segments.length === 0) return 'top level';
  let out = '';
  for (const s of segments) {
    if (typeof s === 'number') out += `[${s}]`;
    else if (/^[A-Za-z_$][\w$-]*$/.test(s)) out += out ? `.${s}` : s;
    else out += `[${JSON.stringify(s)}]`;
  }
  return out;
}

/**
 * Describe a value the user wrote, for `(got ...)`: scalars as written, containers by kind.
 * @param {unknown} v
 * @returns {string}
 */
export function describeValue(v) {
  if (v === undefined) return 'nothing';
  if (v === null) return 'an empty value';
  if (Array.isArray(v)) return v.length ? 'a list' : 'an empty list';
  if (typeof v === 'object') return Object.keys(v).length ? 'a mapping' : 'an empty mapping';
  if (typeof v === 'string') return JSON.stringify(v.length > 40 ? `${v.slice(0, 37)}...` : v);
  return String(v);
}

/**
 * The most problems a refused file lists: a file of 70,000 unknown keys made an 8 MB list,
 * and building it stalled its reader. The rest are counted in one closing line.
 */
const MAX_LISTED = 50;

export class Problems {
  /**
   * @param {string} display  the file name as the user gave it
   * @param {import('./positions.js').Positions} [positions]
   * @param {(segments: (string|number)[]) => (string|number)[]} [toWritten]  a key path -> the
   *   path as the file writes it (a PM2 file read in superd's shape: pm2-reading.js)
   */
  constructor(display, positions, toWritten = (segments) => segments) {
    this.display = display;
    this.positions = positions;
    this.toWritten = toWritten;
    this.items = [];
    this.bad = new Set();
    this.unlisted = 0;
  }

  get size() {
    return this.items.length + this.unlisted;
  }

  /** How many more problems will be listed; past that, `add` only counts them. */
  get room() {
    return Math.max(0, MAX_LISTED - this.items.length);
  }

  /**
   * @param {(string|number)[]} segments  key path of the offending key or value
   * @param {string|null} message  `<what is wrong>; <what to do>`; null: not built (past `room`), only counted
   * @param {'value'|'key'} [which='value']  point at the value, or at the key (unknown keys)
   */
  add(segments, message, which = 'value') {
    this.bad.add(JSON.stringify(segments));
    if (message === null || this.items.length >= MAX_LISTED) {
      this.unlisted++;
      return;
    }
    // Without positions (a JS file's exported object), problems stay in the order found.
    const { line, col } = this.positions?.locate(segments, which) ?? { line: 0, col: 0 };
    this.items.push({ line, col, text: `${this.where(segments, which)}${this.label(segments)}: ${message}` });
  }

  /** A key path as the file writes it: `apps[0].name`, or `name` in a file that is one app. */
  label(segments) {
    return formatPath(this.toWritten(segments));
  }

  /**
   * `<file>:<line>:<col>: ` of a key path, or `<file>: ` when the file has no positions.
   * @param {(string|number)[]} segments  @param {'value'|'key'} [which]
   */
  where(segments, which = 'value') {
    if (!this.positions) return `${this.display}: `;
    const { line, col } = this.positions.locate(segments, which);
    return `${this.display}:${line}:${col}: `;
  }

  /** A problem with no place in the file (e.g. a bad `--only` name): listed last. */
  addGeneral(message) {
    this.items.push({ line: Infinity, col: 0, text: `${this.display}: ${message}` });
  }

  /** A problem with an explicit position (YAML syntax errors). */
  addAt(line, col, message) {
    this.items.push({ line, col, text: `${this.display}:${line}:${col}: ${message}` });
  }

  /** Was a problem already reported at this path or at one of its ancestors? */
  isBad(segments) {
    for (let n = segments.length; n >= 0; n--) {
      if (this.bad.has(JSON.stringify(segments.slice(0, n)))) return true;
    }
    return false;
  }

  /** @returns {string[]} in file order (stable for equal positions), then how many are not listed */
  list() {
    const listed = this.items
      .map((p, i) => ({ ...p, i }))
      .sort((a, b) => a.line - b.line || a.col - b.col || a.i - b.i)
      .map((p) => p.text);
    if (this.unlisted) listed.push(`${this.display}: ${this.unlisted} more ${this.unlisted === 1 ? 'problem' : 'problems'} not listed; fix these first`);
    return listed;
  }
}
