// Issue 28: the `overload:` key is refused at the key (and sub-key) that is wrong, with
// the units of the rest of the file; a good one reaches the daemon in ms.
import test from 'node:test';
import assert from 'node:assert/strict';
import { loadEcosystemText } from '../../lib/config/index.js';
import { FIXTURES } from '../helpers/harness.js';
import path from 'node:path';

const app = (overload) => `apps:\n  - name: api\n    script: ${path.join(FIXTURES, 'apps', 'overload-lab.js')}\n    overload: ${overload}\n`;
const FILE = path.join(FIXTURES, 'eco.yml');
const load = (overload) => loadEcosystemText(app(overload), FILE, { cpus: 2 });
function problems(overload) {
  try {
    load(overload);
  } catch (e) {
    assert.equal(e.code, 'E_CONFIG');
    assert.equal(e.exitStatus, 2);
    return e.details.problems.join('\n');
  }
  return assert.fail(`accepted: ${overload}`);
}

test('overload: good values, in ms, with their defaults; absent: off', () => {
  assert.deepEqual(load('{ max_loop_delay: 100ms, max_inflight: 64 }').apps[0].overload, { max_loop_delay: 100, max_inflight: 64, max_queue_wait: null, status: 503, retry_after: 1000, request_timeout: 30000 });
  assert.deepEqual(load('{ max_inflight: 8, status: 429, retry_after: 0 }').apps[0].overload, { max_loop_delay: null, max_inflight: 8, max_queue_wait: null, status: 429, retry_after: 0, request_timeout: 30000 });
  assert.deepEqual(load('{ max_queue_wait: 500ms, request_timeout: 5s }').apps[0].overload, { max_loop_delay: null, max_inflight: null, max_queue_wait: 500, status: 503, retry_after: 1000, request_timeout: 5000 });
  assert.equal(loadEcosystemText(app('{}').replace(/ *overload:.*\n/, ''), FILE, { cpus: 2 }).apps[0].overload, null);
});

test('overload: bad values refused at the key', () => {
  /** @type {[string, RegExp][]} */
  const cases = [
    ['{ max_loop_delay: 5ms }', /apps\[0\]\.overload\.max_loop_delay: must be at least 10ms \(got 5ms\)/],
    ['{ max_loop_delay: fast }', /apps\[0\]\.overload\.max_loop_delay: must be a duration like 500ms/],
    ['{ max_inflight: 0 }', /apps\[0\]\.overload\.max_inflight: must be an integer from 1 to 1000000 \(got 0\)/],
    ['{ max_inflight: 64, status: 200 }', /apps\[0\]\.overload\.status: must be an HTTP error status from 400 to 599 \(got 200\)/],
    ['{ max_inflight: 64, retry_after: soon }', /apps\[0\]\.overload\.retry_after: must be a duration/],
    ['{ max_queue_wait: 5ms }', /apps\[0\]\.overload\.max_queue_wait: must be at least 10ms \(got 5ms\)/],
    ['{ max_queue_wait: 500ms, request_timeout: 50ms }', /apps\[0\]\.overload\.request_timeout: must be at least 100ms \(got 50ms\)/],
    ['{ retry_after: 1s }', /apps\[0\]\.overload: needs a bound: max_queue_wait \(e\.g\. 500ms\), max_inflight \(e\.g\. 64\) or max_loop_delay/],
    ['{ max_inflight: 64, max_delay: 1s }', /apps\[0\]\.overload\.max_delay: unknown key/],
    ['64', /apps\[0\]\.overload: must be a mapping with max_queue_wait, max_loop_delay and\/or max_inflight/],
  ];
  for (const [value, expected] of cases) assert.match(problems(value), expected, value);
});
