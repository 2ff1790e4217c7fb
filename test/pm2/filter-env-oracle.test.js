// PM2 itself as the oracle for `filter_env`: one PM2 file, started by `pm2 start` and by
// `super start` from the same shell variables (FE_*), each daemon started before from an
// environment without them (as a daemon under systemd is). Each app writes the FE_*
// variables it sees; per app, superd's must be PM2's: a list drops the names that contain
// one of its strings, a string the one of that name, an empty list or false nothing, in
// fork and cluster mode, and the app's own env stays. `filter_env: true` is the one
// deliberate difference: PM2 7 passes every variable (its filter skips `true`), superd
// none, and `super start` warns about it. Then `reload --update-env`: the new shell's
// variables are filtered the same way.
import test from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { sandbox } from '../helpers/harness.js';
import { privatePm2 } from '../helpers/pm2.js';
import { eventually } from '../helpers/wait.js';
import { ensureDaemon } from '../../lib/ctl/launch-daemon.js';

const SHELL = { FE_SECRET_TOKEN: 's', FE_X_ONE: 'x', FE_EXACT: 'e', FE_EXACTLY: 'e2', FE_PLAIN: 'p' };

// Writes the FE_* variable names it sees to env-<TAG>, then idles.
const APP = `const fs = require('node:fs'), path = require('node:path');
const seen = Object.keys(process.env).filter((k) => k.startsWith('FE_')).sort();
fs.writeFileSync(path.join(__dirname, 'env-' + process.env.TAG + '.tmp'), JSON.stringify(seen));
fs.renameSync(path.join(__dirname, 'env-' + process.env.TAG + '.tmp'), path.join(__dirname, 'env-' + process.env.TAG));
setInterval(() => {}, 60000);
`;

const app = (tag, more) => `  { name: 'fe-${tag}', script: 'app.js', env: { TAG: '${tag}' }, ${more} },\n`;
// The app that names one variable goes last: PM2 deletes that variable from the shell
// environment of every app prepared after it (a bug superd does not copy).
const ECOSYSTEM = `module.exports = { apps: [
${app('list', "filter_env: ['SECRET', 'FE_X_'], env: { TAG: 'list', FE_SECRET_OWN: 'own' }")}${app('list-cluster', "filter_env: ['SECRET'], exec_mode: 'cluster', instances: 1")}${app('empty', 'filter_env: []')}${app('unset', '')}${app('false', 'filter_env: false')}${app('every', "filter_env: ['']")}${app('true', 'filter_env: true')}${app('name', "filter_env: 'FE_EXACT'")}] };
`;
const TAGS = ['list', 'list-cluster', 'empty', 'unset', 'false', 'every', 'true', 'name'];

/** tag -> the FE_* names its process saw (each app's file, waited for). */
async function seen(dir, tags = TAGS) {
  const out = {};
  for (const tag of tags) {
    out[tag] = JSON.parse(await eventually(() => fs.readFileSync(path.join(dir, `env-${tag}`), 'utf8'), { timeout: 20000, what: `env-${tag} in ${dir}` }));
  }
  return out;
}

test('filter_env: superd leaves out of each app what PM2 does (true aside: PM2 passes everything, superd nothing, with a warning)', { timeout: 120000 }, async (t) => {
  const pm2 = privatePm2(t);
  const pm2Box = await sandbox(t);
  const box = await sandbox(t);
  for (const b of [pm2Box, box]) {
    b.write('app.js', APP);
    b.write('ecosystem.config.js', ECOSYSTEM);
  }
  // The daemons first, from environments without the shell's variables.
  const [ping] = await Promise.all([pm2.cli(['ping'], pm2Box.dir), ensureDaemon(box.home).then((c) => c.close())]);
  assert.equal(ping.code, 0, ping.stderr);

  const [p, s] = await Promise.all([pm2.cli(['start', 'ecosystem.config.js'], pm2Box.dir, SHELL), box.cli(['start', 'ecosystem.config.js'], { cwd: box.dir, env: SHELL })]);
  assert.equal(p.code, 0, p.stdout + p.stderr);
  assert.equal(s.code, 0, s.stdout + s.stderr);
  const [expected, actual] = await Promise.all([seen(pm2Box.dir), seen(box.dir)]);
  t.diagnostic(`PM2: ${JSON.stringify(expected)}`);

  const all = Object.keys(SHELL).sort();
  assert.deepEqual(expected.true, all, 'PM2 7 passes every variable with filter_env: true (if this fails, PM2 fixed it: make superd match)');
  assert.deepEqual(actual.true, [], 'superd passes none with filter_env: true');
  assert.match(s.stderr, /apps\[6\]\.filter_env: true: the workers get none of the variables of the shell/);
  delete expected.true;
  delete actual.true;
  assert.deepEqual(actual, expected);
  // What the comparison stands on (PM2 did filter): the list, the exact name, everything.
  assert.deepEqual(actual.list, ['FE_EXACT', 'FE_EXACTLY', 'FE_PLAIN', 'FE_SECRET_OWN']);
  assert.deepEqual(actual.name, ['FE_EXACTLY', 'FE_PLAIN', 'FE_SECRET_TOKEN', 'FE_X_ONE']);
  assert.deepEqual(actual.every, []);

  // reload --update-env: the new shell's variables, through the same filter.
  fs.rmSync(path.join(box.dir, 'env-list'));
  const r = await box.cli(['reload', 'fe-list', '--update-env'], { cwd: box.dir, env: { ...SHELL, FE_SECRET_NEW: 'n', FE_NEW: 'n' } });
  assert.equal(r.code, 0, r.stdout + r.stderr);
  assert.deepEqual((await seen(box.dir, ['list'])).list, ['FE_EXACT', 'FE_EXACTLY', 'FE_NEW', 'FE_PLAIN', 'FE_SECRET_OWN']);
});
