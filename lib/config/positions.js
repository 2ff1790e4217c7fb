// Where each key and value of a YAML document sits, so problems can say
// `file:line:col`. js-yaml@4 has no AST; its `listener` option reports every
// node as it opens and closes. We rebuild a light node tree from those events,
// then walk it next to the parsed data to map key paths to text offsets.
//
// Quirks of the events this relies on (js-yaml 4 loader.js, composeNode):
// - 'open' fires before leading whitespace/comments are skipped, so a node's
//   start is the first significant character at or after its open position;
// - a node can wrap one inner node with the same result (a plain scalar read
//   through the block-mapping probe): such wrappers are collapsed;
// - an empty value (`key:`) is a node with kind null and result null;
// - in a flow mapping `{a, b: 1}` a key may have no value node at all, so a key
//   owns the next node only when a ':' follows it.

import yaml from 'js-yaml';

/** @typedef {{open?: number, end?: number, kind?: string|null, result?: unknown, children: YamlNode[]}} YamlNode  one node of js-yaml's events */

/**
 * Parse YAML and record positions.
 * @param {string} text
 * @param {object} [options]  passed to js-yaml's `load` (e.g. `schema`)
 * @returns {{ data: unknown, positions: PositionMap }}
 * @throws {yaml.YAMLException} on a syntax error
 */
export function parseWithPositions(text, options = {}) {
  /** @type {YamlNode[]} */
  const stack = [{ children: [] }];
  const listener = (event, state) => {
    if (event === 'open') {
      stack.push({ open: state.position, children: [] });
      return;
    }
    let node = stack.pop();
    const parent = stack.at(-1);
    if (!node || !parent) return; // never: js-yaml closes only the nodes it opened, so the root stays
    node.end = state.position;
    node.kind = state.kind;
    node.result = state.result;
    if (node.children.length === 1 && node.children[0].result === node.result) node = node.children[0];
    parent.children.push(node);
  };
  const data = yaml.load(text, { ...options, listener });
  const positions = new PositionMap(text);
  const root = stack[0].children.at(-1);
  if (root) positions.walk(root, []);
  return { data, positions };
}

/**
 * What problems need of positions: a PositionMap, or a PM2 file's (pm2-reading.js
 * RemappedPositions, which maps renamed keys back to the file's own).
 * @typedef {{locate(segments: (string|number)[], which?: 'value'|'key'): {line: number, col: number}}} Positions
 */

/** Key path (array of segments) -> { key?, value? } text offsets, with line/column lookup. */
export class PositionMap {
  /** @param {string} text */
  constructor(text) {
    this.text = text;
    this.entries = new Map();
    this.lineStarts = [0];
    for (let i = 0; i < text.length; i++) {
      const c = text.charCodeAt(i);
      // Same line breaks as js-yaml: \n, \r\n, or a lone \r.
      if (c === 0x0a || (c === 0x0d && text.charCodeAt(i + 1) !== 0x0a)) this.lineStarts.push(i + 1);
    }
  }

  /**
   * Line and column (1-based) of a key path's value (or key), falling back to
   * the key, then to the nearest ancestor that has a position.
   * @param {(string|number)[]} segments
   * @param {'value'|'key'} [which='value']
   * @returns {{ line: number, col: number }}
   */
  locate(segments, which = 'value') {
    for (let n = segments.length; n >= 0; n--) {
      const e = this.entries.get(JSON.stringify(segments.slice(0, n)));
      const offset = n === segments.length && which === 'key' ? e?.key ?? e?.value : e?.value ?? e?.key;
      if (offset !== undefined) return this.lineCol(offset);
    }
    return { line: 1, col: 1 };
  }

  /** @param {number} offset */
  lineCol(offset) {
    let lo = 0;
    let hi = this.lineStarts.length - 1;
    while (lo < hi) {
      const mid = (lo + hi + 1) >> 1;
      if (this.lineStarts[mid] <= offset) lo = mid;
      else hi = mid - 1;
    }
    return { line: lo + 1, col: offset - this.lineStarts[lo] + 1 };
  }

  /** @private */
  set(segments, which, offset) {
    const k = JSON.stringify(segments);
    const e = this.entries.get(k) ?? {};
    e[which] = offset;
    this.entries.set(k, e);
  }

  /** @private first significant character at or after `pos` (skips blanks, line breaks, comments). */
  start(pos) {
    const t = this.text;
    while (pos < t.length) {
      const c = t[pos];
      if (c === ' ' || c === '\t' || c === '\n' || c === '\r') pos++;
      else if (c === '#') while (pos < t.length && t[pos] !== '\n' && t[pos] !== '\r') pos++;
      else break;
    }
    return pos;
  }

  /** Records where each node of the YAML tree sits (yaml-positions' listener builds the tree). */
  walk(node, segments) {
    if (node.kind === null && node.result === null) return; // empty value: callers fall back to the key
    this.set(segments, 'value', this.start(node.open));
    const kids = node.children;
    if (node.kind === 'sequence' && Array.isArray(node.result) && kids.length === node.result.length) {
      kids.forEach((kid, i) => this.walk(kid, [...segments, i]));
    } else if (node.kind === 'mapping') {
      for (let i = 0; i < kids.length; i++) {
        const key = kids[i];
        const hasValue = this.text[this.start(key.end)] === ':' && i + 1 < kids.length;
        if (key.kind === 'scalar') {
          const path = [...segments, String(key.result)];
          this.set(path, 'key', this.start(key.open));
          if (hasValue) this.walk(kids[i + 1], path);
        }
        if (hasValue) i++;
      }
    }
  }
}
