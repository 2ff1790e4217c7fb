// Positions come from js-yaml's listener events (lib/config/positions.js);
// every number here was counted by hand from the text.

import assert from 'node:assert/strict';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { loadEcosystemText } from '../../lib/config/index.js';
import { parseWithPositions } from '../../lib/config/positions.js';

const baseDir = fileURLToPath(new URL('../fixtures/bad-config/', import.meta.url));

function problemsOf(text, options = {}) {
  try {
    loadEcosystemText(text, 'eco.yml', { cpus: 2, baseDir, ...options });
  } catch (err) {
    return err.details.problems;
  }
  assert.fail('the text was accepted');
}

test('block style: keys and values', () => {
  const { positions } = parseWithPositions([
    'apps:', //                        1
    '  - name: api   # comment', //    2
    '    instances:', //               3 (empty value)
    '    env:', //                     4
    '      PORT: 80', //               5
    '  -', //                          6
    '    name: web', //                7
  ].join('\n'));
  assert.deepEqual(positions.locate(['apps']), { line: 2, col: 3 });
  assert.deepEqual(positions.locate(['apps'], 'key'), { line: 1, col: 1 });
  assert.deepEqual(positions.locate(['apps', 0]), { line: 2, col: 5 });
  assert.deepEqual(positions.locate(['apps', 0, 'name'], 'key'), { line: 2, col: 5 });
  assert.deepEqual(positions.locate(['apps', 0, 'name']), { line: 2, col: 11 });
  assert.deepEqual(positions.locate(['apps', 0, 'instances']), { line: 3, col: 5 }, 'an empty value falls back to its key');
  assert.deepEqual(positions.locate(['apps', 0, 'env']), { line: 5, col: 7 });
  assert.deepEqual(positions.locate(['apps', 0, 'env', 'PORT']), { line: 5, col: 13 });
  assert.deepEqual(positions.locate(['apps', 1]), { line: 7, col: 5 });
  assert.deepEqual(positions.locate(['apps', 1, 'name']), { line: 7, col: 11 });
});

test('flow style, including a key without value', () => {
  const { positions } = parseWithPositions([
    'apps: [ { name: api, args: [a, "b c"] },', // 1
    '  {name: web, flag, x: {y: 1}} ]', //          2
  ].join('\n'));
  assert.deepEqual(positions.locate(['apps']), { line: 1, col: 7 });
  assert.deepEqual(positions.locate(['apps', 0]), { line: 1, col: 9 });
  assert.deepEqual(positions.locate(['apps', 0, 'name']), { line: 1, col: 17 });
  assert.deepEqual(positions.locate(['apps', 0, 'args', 1]), { line: 1, col: 32 });
  assert.deepEqual(positions.locate(['apps', 1]), { line: 2, col: 3 });
  assert.deepEqual(positions.locate(['apps', 1, 'flag'], 'key'), { line: 2, col: 15 });
  assert.deepEqual(positions.locate(['apps', 1, 'x'], 'key'), { line: 2, col: 21 });
  assert.deepEqual(positions.locate(['apps', 1, 'x', 'y']), { line: 2, col: 28 });
});

test('an unknown path falls back to its nearest known ancestor', () => {
  const { positions } = parseWithPositions('a:\n  b: 1\n');
  assert.deepEqual(positions.locate(['a', 'zz', 3]), { line: 2, col: 3 });
  assert.deepEqual(positions.locate(['nope']), { line: 1, col: 1 });
});

test('a problem points at the offending value; an unknown key at the key', () => {
  const problems = problemsOf([
    'apps:', //                 1
    '  - name: api', //         2
    '    script: app.js', //    3
    '    instances: 1.5', //    4
    '    instnces: 2', //       5
  ].join('\n'));
  assert.equal(problems.length, 2);
  assert.match(problems[0], /^eco\.yml:4:16: apps\[0\]\.instances: must be /);
  assert.equal(problems[1], 'eco.yml:5:5: apps[0].instnces: unknown key; did you mean "instances"?');
});

test('a missing key points at its mapping', () => {
  const problems = problemsOf('apps:\n  - name: api\n    instances: 2\n');
  assert.deepEqual(problems, ['eco.yml:2:5: apps[0].script: required key missing; add it, e.g. script: server.js']);
});

test('a merged (<<) key that is wrong falls back to the app that merges it', () => {
  const problems = problemsOf('x-base: &b\n  instances: lots\napps:\n  - <<: *b\n    name: api\n    script: app.js\n');
  assert.equal(problems.length, 1);
  assert.match(problems[0], /^eco\.yml:4:5: apps\[0\]\.instances: must be .*\(got "lots"\)/);
});

test('CRLF line endings and a BOM do not shift positions', () => {
  const problems = problemsOf('\uFEFFapps:\r\n  - name: api\r\n    script: app.js\r\n    instances: 1.5\r\n');
  assert.match(problems[0], /^eco\.yml:4:16: /);
});

test('YAML syntax errors take js-yaml\'s mark, 1-based', () => {
  assert.deepEqual(problemsOf('apps:\n  - name: a\n     script: b\n'), [
    'eco.yml:3:12: YAML syntax error: bad indentation of a mapping entry; fix the indentation',
  ]);
  assert.deepEqual(problemsOf('apps: [a, b\n'), [
    'eco.yml:2:1: YAML syntax error: unexpected end of the stream within a flow collection; close the [ ] or { } and separate items with commas',
  ]);
});

test('problems are listed in file order', () => {
  const problems = problemsOf('apps:\n  - name: api\n    script: nope.js\n    instances: x\nshedule: os\n');
  assert.deepEqual(problems.map((p) => p.split(':').slice(1, 3).join(':')), ['3:13', '4:16', '5:1']);
});
