// `args: "--port 80 --name 'my app'"` -> argv, split like a POSIX shell would
// (no expansion: no globs, no $VAR, no ~).

/**
 * Split a command-line string into words: whitespace separates, '…' is literal,
 * "…" allows \" \\ \$ \` escapes, a backslash outside quotes escapes the next character.
 * @param {string} str
 * @returns {string[]}
 * @throws {SyntaxError} on an unterminated quote or a trailing backslash
 */
export function shellSplit(str) {
  const words = [];
  let word = '';
  let inWord = false;
  for (let i = 0; i < str.length; i++) {
    const ch = str[i];
    if (ch === ' ' || ch === '\t' || ch === '\n' || ch === '\r') {
      if (inWord) words.push(word);
      word = '';
      inWord = false;
    } else if (ch === "'") {
      const end = str.indexOf("'", i + 1);
      if (end === -1) throw new SyntaxError('unterminated single quote');
      word += str.slice(i + 1, end);
      i = end;
      inWord = true;
    } else if (ch === '"') {
      i++;
      for (; i < str.length && str[i] !== '"'; i++) {
        if (str[i] === '\\' && '"\\$`'.includes(str[i + 1])) i++;
        word += str[i];
      }
      if (i >= str.length) throw new SyntaxError('unterminated double quote');
      inWord = true;
    } else if (ch === '\\') {
      if (i + 1 >= str.length) throw new SyntaxError('trailing backslash');
      word += str[++i];
      inWord = true;
    } else {
      word += ch;
      inWord = true;
    }
  }
  if (inWord) words.push(word);
  return words;
}

/**
 * A word as a shell reads it back (in a hint like `super logs 'Billing API'`): as is when
 * it is plain, else in single quotes.
 * @param {string} word
 * @returns {string}
 */
export function shellQuote(word) {
  return /^[\w@%+=:,./-]+$/.test(word) ? word : `'${word.replaceAll("'", "'\\''")}'`;
}
