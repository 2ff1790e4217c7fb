// A file with thousands of problems lists the first 50 and counts the rest in one line:
// 70,000 unknown keys made an 8 MB problem list (and a "did you mean" search for each).
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { loadEcosystemText } from '../../lib/config/index.js';

const refusal = (text) => {
  try {
    loadEcosystemText(text, '/x/eco.yml');
  } catch (err) {
    assert.equal(err.code, 'E_CONFIG');
    return err;
  }
  assert.fail('the file was accepted');
};

test('past 50 problems, the rest are counted in one closing line', () => {
  const keys = Array.from({ length: 200 }, (_, i) => `    scirpt_${i}: 1\n`).join('');
  const err = refusal(`apps:\n  - name: web\n    script: /bin/true\n${keys}    instances: lots\n`);
  assert.equal(err.message, '201 problems in /x/eco.yml');
  const list = err.details.problems;
  assert.equal(list.length, 51);
  assert.equal(list[0], '/x/eco.yml:4:5: apps[0].scirpt_0: unknown key; remove it, or see config/schema.json for the keys');
  assert.equal(list.at(-1), '/x/eco.yml: 151 more problems not listed; fix these first');
});

test('a file with 50 problems or fewer lists them all, with no closing line', () => {
  const keys = Array.from({ length: 50 }, (_, i) => `    k${i}: 1\n`).join('');
  const list = refusal(`apps:\n  - name: web\n    script: /bin/true\n${keys}`).details.problems;
  assert.equal(list.length, 50);
  assert.match(list.at(-1), /apps\[0\]\.k49: unknown key/);
});
