// Issue 14, minor: a duration longer than a Node timer can hold (kill_timeout: 1000h
// became a 1 ms timer) and an env value with a NUL byte (accepted, then a crash loop) are
// refused at the key.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { loadEcosystemText } from '../../lib/config/index.js';

const problems = (extra) => {
  try {
    loadEcosystemText(`apps:\n  - name: web\n    script: /bin/true\n${extra}`, '/x/eco.yml');
    return [];
  } catch (err) {
    assert.equal(err.code, 'E_CONFIG');
    return err.details.problems;
  }
};

test('a duration over 2^31-1 ms is refused at its key, whatever the key', () => {
  assert.deepEqual(problems('    kill_timeout: 1000h\n'), ['/x/eco.yml:4:19: apps[0].kill_timeout: 1000h is longer than 2147483647 ms (about 24.8 days), the longest timer Node can set; use a shorter duration']);
  assert.match(problems('    listen_timeout: 2147483648\n')[0], /apps\[0\]\.listen_timeout: 2147483648 is longer than/);
  assert.deepEqual(problems('    kill_timeout: 596h\n'), [], '596 h is under the bound');
});

test('an env value with a NUL byte is refused at the variable, in env_<name> too', () => {
  assert.deepEqual(problems('    env: { A: "a\\0b" }\n'), ['/x/eco.yml:4:15: apps[0].env.A: holds a NUL byte, which an environment variable cannot; remove it']);
  assert.deepEqual(problems('    env_prod: { B: "x\\0" }\n'), ['/x/eco.yml:4:20: apps[0].env_prod.B: holds a NUL byte, which an environment variable cannot; remove it']);
});
