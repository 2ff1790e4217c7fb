// PM2's watch_options and filter_env as the reader takes them: chokidar's options in ms
// (durations too), `ignored` added to ignore_watch, what superd sets itself warned about,
// bounds and typos refused; filter_env's three forms, and the warning for `true` in a PM2
// file. What they do to a running app: test/prod/watch.test.js and
// test/pm2/filter-env-oracle.test.js.
import assert from 'node:assert/strict';
import path from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { loadEcosystemText } from '../../lib/config/index.js';
import { problems } from '../helpers/config-problems.js';
import { filteredCallerEnv } from '../../lib/config/filter-env.js';

const dir = fileURLToPath(new URL('../fixtures/good-config/', import.meta.url));
const file = path.join(dir, 'eco.yml');
const app = (keys) => loadEcosystemText(`apps:\n  - name: a\n    script: app.js\n${keys.split('\n').map((l) => `    ${l}`).join('\n')}\n`, file, { cpus: 2 });

test('watch_options: chokidar\'s options in ms, ignored added to ignore_watch, what superd sets warned about', () => {
  const eco = app([
    'watch: true',
    'ignore_watch: [build]',
    'watch_options:',
    '  usePolling: true',
    '  interval: 1s',
    '  binaryInterval: 3000',
    '  awaitWriteFinish: { stabilityThreshold: 2s, pollInterval: 100 }',
    '  depth: 2',
    '  atomic: 50ms',
    '  ignorePermissionErrors: true',
    '  ignored: "*.tmp"',
    '  followSymlinks: true',
    '  persistent: true',
    '  cwd: /elsewhere',
  ].join('\n'));
  const a = eco.apps[0];
  assert.deepEqual(a.watch_options, {
    usePolling: true, interval: 1000, binaryInterval: 3000, awaitWriteFinish: { stabilityThreshold: 2000, pollInterval: 100 },
    depth: 2, atomic: 50, ignorePermissionErrors: true,
  });
  assert.deepEqual(a.ignore_watch, ['build', '*.tmp']);
  assert.deepEqual(eco.warnings, [
    `${file}:15:7: apps[0].watch_options.followSymlinks: ignored: superd never follows a link inside a watched tree (a link to / would be watched whole); a watched path that is itself a link is followed`,
    `${file}:16:7: apps[0].watch_options.persistent: ignored: superd sets it`,
    `${file}:17:7: apps[0].watch_options.cwd: ignored: superd sets it: the watched paths are absolute`,
  ]);
  assert.equal(app('watch: true').apps[0].watch_options, null, 'none written: none passed');
  assert.deepEqual(app('watch_options: { awaitWriteFinish: true, followSymlinks: false }').apps[0].watch_options, { awaitWriteFinish: true });
});

test('watch_options: a typo gets a suggestion, a poll faster than 100 ms, a wait longer than a timer and a negative depth are refused', () => {
  assert.deepEqual(problems(() => app('watch_options: { usePoling: true }')), [`${file}:4:22: apps[0].watch_options.usePoling: unknown key; did you mean "usePolling"?`]);
  assert.deepEqual(problems(() => app('watch_options: { usePolling: true, interval: 10 }')), [`${file}:4:50: apps[0].watch_options.interval: must be at least 100ms (got 10)`]);
  const [long] = problems(() => app('watch_options: { awaitWriteFinish: { stabilityThreshold: 1000h } }'));
  assert.match(long, /apps\[0\]\.watch_options\.awaitWriteFinish: 1000h is longer than 2147483647 ms/);
  const [depth] = problems(() => app('watch_options: { depth: -1 }'));
  assert.match(depth, /apps\[0\]\.watch_options\.depth: .*0 to 1000/);
});

test('filter_env: a list, a name, true (a warning in a PM2 file), false and empty forms filter nothing', () => {
  const env = { AWS_KEY: '1', MY_AWS_ID: '2', SECRET: '3', PLAIN: '4' };
  const filtered = (keys) => filteredCallerEnv(env, app(keys).apps[0].filter_env);
  assert.deepEqual(filtered('filter_env: [AWS_]'), { SECRET: '3', PLAIN: '4' }, 'a name containing a string is left out (PM2\'s includes)');
  assert.deepEqual(filtered('filter_env: SECRET'), { AWS_KEY: '1', MY_AWS_ID: '2', PLAIN: '4' });
  assert.deepEqual(filtered('filter_env: [""]'), {});
  for (const none of ['filter_env: false', 'filter_env: []', 'filter_env: ""']) assert.deepEqual(filtered(none), env, none);
  // PM2's own format (what `pm2 init` writes): PM2 7 would pass every variable, and the warning says so.
  const pm2 = loadEcosystemText(JSON.stringify({ apps: [{ name: 'a', script: 'app.js', filter_env: true }] }), path.join(dir, 'ecosystem.json'), { cpus: 2 });
  assert.deepEqual(filteredCallerEnv(env, pm2.apps[0].filter_env), {});
  assert.equal(pm2.warnings.length, 1);
  assert.match(pm2.warnings[0], /apps\[0\]\.filter_env: true: the workers get none of the variables of the shell that runs `super start` \(the intent of PM2's key; PM2 7 itself passes them all\)/);
  assert.deepEqual(filteredCallerEnv(env, app('filter_env: true').apps[0].filter_env), {});
  assert.deepEqual(app('filter_env: true').warnings, [], 'a YAML file: superd\'s reading, no word about PM2');
  const [bad] = problems(() => app('filter_env: [1, 2]'));
  assert.match(bad, /apps\[0\]\.filter_env/);
});
