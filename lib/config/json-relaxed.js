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
