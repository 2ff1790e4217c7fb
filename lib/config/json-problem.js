// Where a JSON text first goes wrong, and what to do. JSON.parse's own messages do not
// always carry a position (Node 20: `Unexpected token ']', "..." is not valid JSON`),
// so this small scanner walks the text the way the JSON grammar does, only on failure.

const WS = new Set([' ', '\t', '\n', '\r']);
const NUMBER = /-?(0|[1-9]\d*)(\.\d+)?([eE][+-]?\d+)?/y;
const STRING_CHAR = /[^"\\\u0000-\u001f]*/y;

/**
 * @param {string} text  a text JSON.parse refused
 * @returns {{ offset: number, message: string }}  offset of the first error, message `<what>; <what to do>`
 */
export function jsonProblem(text) {
  let i = 0;
  const fail = (message, at = i) => {
    throw Object.assign(new Error(message), { offset: at });
  };
  const skip = () => {
    while (i < text.length && WS.has(text[i])) i++;
  };
  const found = () => (i >= text.length ? 'the end of the file' : JSON.stringify(text[i]));
  const literal = (word) => {
    if (text.startsWith(word, i)) i += word.length;
    else fail(`expected a value, found ${found()}; write a "string", a number, true, false, null, [ ] or { }`);
  };
  const string = () => {
    const start = i++;
    for (;;) {
      STRING_CHAR.lastIndex = i;
      STRING_CHAR.exec(text);
      i = STRING_CHAR.lastIndex;
      if (i >= text.length) fail('unterminated string; close the quote', start);
      if (text[i] === '"') return i++;
      if (text[i] === '\\') {
        if (!/^(["\\/bfnrt]|u[0-9a-fA-F]{4})/.test(text.slice(i + 1, i + 6))) fail('bad escape in a string; write \\\\ for a backslash');
        i += text[i + 1] === 'u' ? 6 : 2;
      } else fail('a line break or control character inside a string; write it as \\n (or close the quote)');
    }
  };
  const value = () => {
    skip();
    const c = text[i];
    if (c === '{') return container('}', true);
    if (c === '[') return container(']', false);
    if (c === '"') return string();
    if (c === "'") fail('single-quoted string; JSON needs double quotes');
    NUMBER.lastIndex = i;
    if (NUMBER.exec(text)) return (i = NUMBER.lastIndex);
    if (c === 't') return literal('true');
    if (c === 'f') return literal('false');
    if (c === 'n') return literal('null');
    return fail(`expected a value, found ${found()}; write a "string", a number, true, false, null, [ ] or { }`);
  };
  const container = (close, isObject) => {
    i++;
    skip();
    if (text[i] === close) return i++;
    for (;;) {
      if (isObject) {
        skip();
        if (text[i] !== '"') fail(`expected a key in double quotes, found ${found()}; quote the key ("name": ...)`);
        string();
        skip();
        if (text[i] !== ':') fail(`expected ":" after the key, found ${found()}; write "key": value`);
        i++;
      }
      value();
      skip();
      if (text[i] === close) return i++;
      if (text[i] !== ',') fail(`expected "," or "${close}", found ${found()}; separate items with commas and close the ${isObject ? '{ }' : '[ ]'}`);
      const comma = i++;
      skip();
      if (text[i] === close) fail(`trailing comma before "${close}"; JSON allows none: remove it`, comma);
    }
  };
  try {
    value();
    skip();
    if (i < text.length) fail(`${found()} after the end of the JSON value; remove it`);
  } catch (err) {
    if (err.offset === undefined) throw err;
    return { offset: err.offset, message: `JSON syntax error: ${err.message}` };
  }
  return { offset: 0, message: 'JSON syntax error; check the file' }; // JSON.parse refused what this scanner accepts: not expected
}
