// Every test file of the suite, test/<folder>/<name>.test.js, relative to the checkout, in
// name order: what `npm test` runs (test/run.js) and bench/test-cost.js measures.
import fs from 'node:fs';
import path from 'node:path';

/** @param {string} root  the checkout */
export function testFiles(root) {
  const out = [];
  for (const dir of fs.readdirSync(path.join(root, 'test')).sort()) {
    const full = path.join(root, 'test', dir);
    if (!fs.statSync(full).isDirectory()) continue;
    for (const f of fs.readdirSync(full).sort()) if (f.endsWith('.test.js')) out.push(`test/${dir}/${f}`);
  }
  return out;
}
