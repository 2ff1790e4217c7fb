// A js-yaml syntax error -> one problem line with its position and what to do.

/** @type {[RegExp, string][]} reason (as js-yaml words it) -> what to do */
const FIXES = [
  [/tab characters/, 'indent with spaces, not tabs'],
  [/indentation/, 'fix the indentation'],
  [/duplicated mapping key/, 'remove or rename one of the two'],
  [/within a flow collection|missed comma/, 'close the [ ] or { } and separate items with commas'],
  [/quoted scalar/, 'close the quote'],
  [/single document/, 'keep one document: remove the extra ---'],
  [/colon is missed|key-value separator/, 'write `key: value`, with a space after the colon'],
];

/**
 * @param {import('js-yaml').YAMLException} err
 * @returns {{ line: number, col: number, message: string }}  1-based position (1:1 when js-yaml gives none)
 */
export function yamlProblem(err) {
  const reason = err.reason ?? err.message;
  const fix = FIXES.find(([re]) => re.test(reason))?.[1] ?? 'fix the YAML syntax';
  const line = err.mark ? err.mark.line + 1 : 1;
  const col = err.mark ? err.mark.column + 1 : 1;
  return { line, col, message: `YAML syntax error: ${reason}; ${fix}` };
}
