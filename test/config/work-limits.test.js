// Issue 14 item 2: instances and apps are bounded in every file (1024 workers per app, 1000
// apps, unless SUPER_MAX_INSTANCES / SUPER_MAX_APPS say otherwise), refused at the key.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { loadEcosystemText } from '../../lib/config/index.js';
import { workLimits } from '../../lib/config/work-limits.js';

const app = (instances) => `apps:\n  - name: web\n    script: /bin/true\n    instances: ${instances}\n`;
const problems = (text, file = '/x/eco.yml') => {
  try {
    loadEcosystemText(text, file);
    return [];
  } catch (err) {
    assert.equal(err.code, 'E_CONFIG');
    return err.details.problems;
  }
};

test('instances: 100000 and 1e9 are refused at file:line, naming the limit', () => {
  for (const [spec, n] of [['100000', 100000], ['1e9', 1000000000], ['1025', 1025]]) {
    assert.deepEqual(problems(app(spec)), [`/x/eco.yml:4:16: apps[0].instances: ${n} instances is more than the limit of 1024; use at most 1024, or raise SUPER_MAX_INSTANCES in the daemon's environment`]);
  }
  assert.deepEqual(problems(app(1024)), []);
});

test('12,000 apps are refused at the apps key, before any is normalized', () => {
  let text = 'apps:\n';
  for (let i = 0; i < 12000; i++) text += `  - { name: a${i}, script: /bin/true }\n`;
  assert.deepEqual(problems(text), ['/x/eco.yml:2:3: apps: 12000 apps is more than the limit of 1000; split the file across daemons, or raise SUPER_MAX_APPS in the daemon\'s environment']);
});

test('the environment moves the bounds; a value that is not a positive integer is ignored', (t) => {
  const saved = { ...process.env };
  t.after(() => {
    for (const k of ['SUPER_MAX_INSTANCES', 'SUPER_MAX_APPS']) {
      if (saved[k] === undefined) delete process.env[k];
      else process.env[k] = saved[k];
    }
  });
  process.env.SUPER_MAX_INSTANCES = '2000';
  assert.deepEqual(problems(app(1500)), []);
  process.env.SUPER_MAX_INSTANCES = '2';
  assert.match(problems(app(3))[0], /3 instances is more than the limit of 2/);
  assert.deepEqual(workLimits({ SUPER_MAX_INSTANCES: '0', SUPER_MAX_APPS: 'lots' }), { instances: 1024, apps: 1000 });
  assert.deepEqual(workLimits({ SUPER_MAX_INSTANCES: '5000', SUPER_MAX_APPS: '20000' }), { instances: 5000, apps: 20000 });
});
