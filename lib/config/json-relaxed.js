// PM2 reads a .json ecosystem file as a JavaScript expression (Common.parseConfig runs
// `(<text>)` in a vm), so the process.json files teams commit may hold comments and
// trailing commas. superd never runs a .json file: it blanks those out, and JSON.parse
// reads the rest. Every character keeps its offset (a comment becomes spaces, its line
// breaks kept), so problems still point at the right line and column.

/**
 * The text with its comments and trailing commas blanked, or null when it has none.
 * @param {string} text
 * @returns {string|null}
 */
export function blankCommentsAndTrailingCommas(text) {
  const out = text.split('');
  let changed = false;
  const blank = (from, to) => {
    for (let i = from; i < to; i++) if (out[i] !== '\n' && out[i] !== '\r') out[i] = ' ';
    changed = true;
  };
  let comma = -1; // a comma seen since the last value: trailing if a closing bracket comes next
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (c === '"') {
      for (i++; i < text.length && text[i] !== '"'; i++) if (text[i] === '\\') i++;
      comma = -1;
    } else if (c === '/' && text[i + 1] === '/') {
      const end = text.indexOf('\n', i);
      blank(i, end < 0 ? text.length : end);
      i = end < 0 ? text.length : end;
    } else if (c === '/' && text[i + 1] === '*') {
      const end = text.indexOf('*/', i + 2);
      if (end < 0) return null; // unclosed: JSON.parse's error says where
      blank(i, end + 2);
      i = end + 1;
    } else if (c === ',') {
      comma = i;
    } else if ((c === '}' || c === ']') && comma >= 0) {
      blank(comma, comma + 1);
      comma = -1;
    } else if (!/\s/.test(c)) {
      comma = -1;
    }
  }
  return changed ? out.join('') : null;
}

/**
 * A .json file as PM2 reads it, a JavaScript expression of literals: besides JSON, keys
 * without quotes, strings in single quotes (with JavaScript's escapes), numbers such as
 * `.5`, `+1`, `0x10`, `undefined` (dropped from an object, as JSON.stringify would), comments
 * and trailing commas. Nothing is run: anything else (a call, a variable, a template
 * string) is not a literal, and is refused.
 * @param {string} text
 * @returns {{ value: unknown } | { error: string, offset: number }}
 */
export function parseRelaxedJson(text) {
  let i = 0;
  /** @type {(what: string) => never} */
  const fail = (what) => {
    throw Object.assign(new Error(what), { offset: i });
  };
  const space = () => {
    for (;;) {
      while (i < text.length && /\s/.test(text[i])) i++;
      if (text.startsWith('//', i)) {
        const end = text.indexOf('\n', i);
        i = end < 0 ? text.length : end;
      } else if (text.startsWith('/*', i)) {
        const end = text.indexOf('*/', i + 2);
        if (end < 0) fail('an unclosed /* comment');
        i = end + 2;
      } else return;
    }
  };
  const ESCAPES = { n: '\n', r: '\r', t: '\t', b: '\b', f: '\f', v: '\v', 0: '\0' };
  const string = () => {
    const quote = text[i++];
    let out = '';
    while (i < text.length && text[i] !== quote) {
      let c = text[i++];
      if (c === '\n') fail('a line break inside a string');
      if (c === '\\') {
        c = text[i++];
        if (c === 'u' || c === 'x') {
          const n = c === 'x' ? 2 : text[i] === '{' ? text.indexOf('}', i) - i + 1 : 4;
          const hex = text.slice(i, i + n).replace(/[{}]/g, '');
          if (!/^[0-9a-fA-F]+$/.test(hex)) fail(`a bad \\${c} escape`);
          out += String.fromCodePoint(parseInt(hex, 16));
          i += n;
        } else if (c === '\r' || c === '\n') {
          if (c === '\r' && text[i] === '\n') i++;
        } else out += ESCAPES[c] ?? c;
      } else out += c;
    }
    if (i >= text.length) fail('an unclosed string');
    i++;
    return out;
  };
  const WORD = /[A-Za-z_$][\w$]*/y;
  const NUM = /[+-]?(0[xX][0-9a-fA-F]+|0[oO][0-7]+|0[bB][01]+|(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?|Infinity)/y;
  const value = () => {
    space();
    const c = text[i];
    if (c === '{') return object();
    if (c === '[') return array();
    if (c === '"' || c === "'") return string();
    NUM.lastIndex = i;
    const num = NUM.exec(text);
    if (num) {
      i += num[0].length;
      const s = num[0].replace(/^\+/, '');
      return /^-?0[xXoObB]/.test(s) ? (s.startsWith('-') ? -Number(s.slice(1)) : Number(s)) : Number(s);
    }
    WORD.lastIndex = i;
    const word = WORD.exec(text)?.[0];
    const literals = { true: true, false: false, null: null, undefined, NaN: NaN };
    if (word !== undefined && Object.hasOwn(literals, word)) {
      i += word.length;
      return literals[word];
    }
    return fail(c === undefined ? 'the end of the file where a value should be' : `${JSON.stringify(word ?? c)}, which is not a literal value (superd never runs a .json file)`);
  };
  const object = () => {
    i++;
    const out = {};
    for (;;) {
      space();
      if (text[i] === '}') break;
      let key;
      if (text[i] === '"' || text[i] === "'") key = string();
      else {
        WORD.lastIndex = i;
        NUM.lastIndex = i;
        const m = WORD.exec(text) ?? NUM.exec(text);
        if (!m) fail('a key');
        key = m[0];
        i += key.length;
      }
      space();
      if (text[i] !== ':') fail(`":" after the key ${JSON.stringify(key)}`);
      i++;
      const v = value();
      if (v !== undefined) Object.defineProperty(out, key, { value: v, enumerable: true, writable: true, configurable: true });
      space();
      if (text[i] === ',') i++;
      else if (text[i] !== '}') fail('"," or "}"');
    }
    i++;
    return out;
  };
  const array = () => {
    i++;
    const out = [];
    for (;;) {
      space();
      if (text[i] === ']') break;
      out.push(value() ?? null);
      space();
      if (text[i] === ',') i++;
      else if (text[i] !== ']') fail('"," or "]"');
    }
    i++;
    return out;
  };
  try {
    space();
    // PM2 runs `(<text>)`: the expression may sit in parentheses.
    let parens = 0;
    while (text[i] === '(') {
      i++;
      parens++;
      space();
    }
    const v = value();
    for (space(); parens > 0 && text[i] === ')'; parens--) {
      i++;
      space();
    }
    if (i < text.length || parens) fail('the end of the file');
    return { value: v };
  } catch (err) {
    return { error: `expected ${err.message}`, offset: err.offset };
  }
}
