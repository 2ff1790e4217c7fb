// Issue 28, autoscale: `instances: { min, max }` and `autoscale:` are refused at the key
// (and sub-key) that is wrong; a good pair reaches the daemon in ms, with its defaults, and
// a saved autoscaled app comes back with the count it had, within its bounds.
import test from 'node:test';
import assert from 'node:assert/strict';
import path from 'node:path';
import { loadEcosystemText, loadSavedApp } from '../../lib/config/index.js';
import { FIXTURES } from '../helpers/harness.js';

const FILE = path.join(FIXTURES, 'eco.yml');
const app = (lines, script = path.join(FIXTURES, 'apps', 'overload-lab.js')) => `apps:\n  - name: api\n    script: ${script}\n${lines.map((l) => `    ${l}\n`).join('')}`;
const load = (...lines) => loadEcosystemText(app(lines), FILE, { cpus: 2 }).apps[0];
function problems(...lines) {
  try {
    load(...lines);
  } catch (e) {
    assert.equal(e.code, 'E_CONFIG');
    assert.equal(e.exitStatus, 2);
    return e.details.problems.join('\n');
  }
  return assert.fail(`accepted: ${lines.join('; ')}`);
}
const rule = (r) => ({ elu: null, loop_delay: null, inflight: null, ...r });

test('autoscale: bounds and rules in ms, with their defaults; the app starts min workers', () => {
  const a = load('instances: { min: 1, max: max }', 'autoscale: { up: { loop_delay: 150ms, inflight: 32, for: 5s }, down: { inflight: 2, for: 1m }, cooldown: 10s }');
  assert.equal(a.instances, 1);
  assert.deepEqual(a.autoscale, { min: 1, max: 2, up: rule({ loop_delay: 150, inflight: 32, for: 5000 }), down: rule({ inflight: 2, for: 60_000 }), cooldown: 10_000 });
  const d = load('instances: { min: 2, max: 4 }');
  assert.equal(d.instances, 2);
  assert.deepEqual(d.autoscale, { min: 2, max: 4, up: rule({ elu: 0.8, for: 10_000 }), down: rule({ elu: 0.3, for: 120_000 }), cooldown: 30_000 });
  assert.equal(load('instances: 2').autoscale, null);
});

test('autoscale: bad values refused at the key', () => {
  /** @type {[string[], RegExp][]} */
  const cases = [
    [['instances: { min: 3, max: 2 }'], /apps\[0\]\.instances\.max: 2 is below min \(3\); give max >= min/],
    [['instances: { min: -3, max: 2 }'], /apps\[0\]\.instances\.min: -3 with 2 CPUs leaves no worker/],
    [['instances: { min: 1 }'], /apps\[0\]\.instances/],
    [['instances: { min: 1, max: 2, step: 1 }'], /apps\[0\]\.instances/],
    [['instances: { min: 1, max: 999999 }'], /apps\[0\]\.instances\.max: .*limit/],
    [['instances: 2', 'autoscale: { cooldown: 1s }'], /apps\[0\]\.autoscale: needs instances: \{ min, max \}, the bounds it scales within \(instances is 2\)/],
    [['autoscale: {}'], /apps\[0\]\.autoscale: needs instances: \{ min, max \}/],
    [['instances: { min: 1, max: 2 }', 'autoscale: { up: { for: 5s } }'], /apps\[0\]\.autoscale\.up: needs a figure to watch: elu \(e\.g\. 0\.8\), loop_delay/],
    [['instances: { min: 1, max: 2 }', 'autoscale: { up: { elu: 1.5 } }'], /apps\[0\]\.autoscale\.up\.elu: must be a number above 0 and at most 1 \(got 1\.5\)/],
    [['instances: { min: 1, max: 2 }', 'autoscale: { up: { elu: 0.5 }, down: { elu: 0.6 } }'], /apps\[0\]\.autoscale\.down\.elu: 0\.6 is not below up\.elu \(0\.5\)/],
    [['instances: { min: 1, max: 2 }', 'autoscale: { down: { inflight: 0 } }'], /apps\[0\]\.autoscale\.down\.inflight: must be a number above 0/],
    [['instances: { min: 1, max: 2 }', 'autoscale: { up: { elu: 0.9, for: soon } }'], /apps\[0\]\.autoscale\.up\.for: must be a duration like 500ms/],
    [['instances: { min: 1, max: 2 }', 'autoscale: { cooldown: 30d }'], /apps\[0\]\.autoscale\.cooldown: must be a duration/],
    [['instances: { min: 1, max: 2 }', 'autoscale: { cooldown: 600h }'], /apps\[0\]\.autoscale\.cooldown: 600h is longer than 2147483647 ms/],
    [['instances: { min: 1, max: 2 }', 'autoscale: { upp: { elu: 0.9 } }'], /apps\[0\]\.autoscale\.upp: unknown key/],
  ];
  for (const [lines, expected] of cases) assert.match(problems(...lines), expected, lines.join('; '));
  // the figures come from superd's agent: a worker that is not a Node program has none
  const script = path.join(FIXTURES, 'apps', 'script.sh');
  assert.throws(() => loadEcosystemText(app(['instances: { min: 1, max: 2 }'], script), FILE, { cpus: 2 }), (/** @type {any} */ e) => /apps\[0\]\.instances: a \{ min, max \} count autoscales on the figures superd's agent reports/.test(e.details.problems.join('\n')));
});

test('autoscale: a saved app comes back with its count within its bounds, its rules as they were', () => {
  const running = load('instances: { min: 1, max: 4 }', 'autoscale: { up: { inflight: 8, for: 3s } }');
  const saved = JSON.parse(JSON.stringify({ ...running, instances: 3 })); // as dump.json holds it
  const back = loadSavedApp(saved, 'dump.json', { cpus: 2 });
  assert.equal(back.instances, 3);
  assert.deepEqual(back.autoscale, running.autoscale);
  assert.equal(loadSavedApp({ ...saved, instances: 9 }, 'dump.json', { cpus: 2 }).instances, 4, 'clamped to max');
});
