// A PM2-format file read as PM2 reads it (lib/config/pm2-reading.js): its shapes of the
// app list, numbers written as strings, two names for one key, apps without a name. Each
// case next to what PM2 7 does (its Common.verifyConfs, Config.validateJSON, API._startJson),
// and with the problem still at the key as written.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { loadEcosystemText } from '../../lib/config/index.js';
import { problems } from '../helpers/config-problems.js';
import { camelCase, isPm2Format } from '../../lib/config/pm2-format.js';
import { PM2_ALIASES, PM2_KEYS, PM2_NUMBER_KEYS } from '../../lib/config/pm2-keys.js';

const dir = fileURLToPath(new URL('../fixtures/good-config/', import.meta.url));
const json = path.join(dir, 'eco.json');
const yml = path.join(dir, 'eco.yml');
const load = (text, file = json) => loadEcosystemText(typeof text === 'string' ? text : JSON.stringify(text, null, 2), file, { cpus: 2 });
const one = (keys) => load({ apps: [{ name: 'a', script: 'app.js', ...keys }] });

test('the app list: one app at the top, a bare list, apps: as one mapping, pm2:', () => {
  const top = load({ script: 'app.js', instances: 2 });
  assert.deepEqual(top.apps.map((a) => [a.name, a.instances]), [['app', 2]]);
  assert.deepEqual(load([{ name: 'a', script: 'app.js' }, { name: 'b', script: 'app.js' }]).apps.map((a) => a.name), ['a', 'b']);
  assert.deepEqual(load('apps:\n  name: m\n  script: app.js\n', yml).apps.map((a) => a.name), ['m']);
  assert.deepEqual(load({ pm2: [{ name: 'p', script: 'app.js' }] }).apps.map((a) => a.name), ['p']);
  // A deploy section next to one app stays a top-level key (ignored with a warning).
  assert.match(load({ script: 'app.js', deploy: { production: {} } }).warnings[0], /eco\.json:\d+:\d+: deploy: PM2-only key/);
});

test('problems of a reshaped file point at the key as written', () => {
  assert.deepEqual(problems(() => load('{\n  "script": "app.js",\n  "instances": "two"\n}\n')), [
    `${json}:3:16: instances: must be a positive integer, "max", 0 (one per CPU), a negative integer (one per CPU minus N), or { min, max } to autoscale (got "two"); use a whole number such as 4, or max`,
  ]);
  assert.match(problems(() => load('[\n  { "name": "a", "script": "app.js" },\n  { "name": "b", "script": "app.js", "watch": 4 }\n]\n'))[0], /eco\.json:3:47: \[1\]\.watch: must be true, false/);
  assert.match(problems(() => load('apps:\n  name: m\n  script: app.js\n  instances: lots\n', yml))[0], /eco\.yml:4:14: apps\.instances: must be/);
  assert.match(problems(() => load('{\n  "script": "app.js",\n  "outFile": 3\n}\n'))[0], /eco\.json:3:14: outFile: must be/);
});

test('numbers written as strings, where PM2 takes a number; other strings are still refused at the key', () => {
  const a = one({ instances: '2', port: '3000', max_restarts: '10', kill_timeout: '5000', min_uptime: '2000', max_memory_restart: '1048576', stop_exit_codes: '0', restart_delay: '250' }).apps[0];
  assert.deepEqual([a.instances, a.env.PORT, a.max_restarts, a.kill_timeout, a.min_uptime, a.max_memory_restart, a.stop_exit_codes, a.restart_delay], [2, '3000', 10, 5000, 2000, 1048576, [0], 250]);
  assert.equal(one({ max_memory_restart: '1G' }).apps[0].max_memory_restart, 1024 ** 3);
  assert.match(problems(() => one({ max_restarts: 'ten' }))[0], /apps\[0\]\.max_restarts: must be an integer >= 0 \(got "ten"\)/);
  assert.match(problems(() => one({ instances: 'two' }))[0], /apps\[0\]\.instances: must be a positive integer/);
  // PM2's parseInt reads "4," (YAML's `instances: 4,`) and "2.5" leniently: so does superd, saying what it read.
  const lenient = one({ instances: '4,' });
  assert.equal(lenient.apps[0].instances, 4);
  assert.match(lenient.warnings[0], /apps\[0\]\.instances: "4," is read as 4, as PM2's parseInt reads it/);
  assert.equal(one({ instances: '2.5' }).apps[0].instances, 2);
  // PM2 refuses a boolean written as a string ("Expect autorestart to be a typeof boolean"): so does superd.
  assert.match(problems(() => one({ autorestart: 'false' }))[0], /apps\[0\]\.autorestart: must be true or false \(got "false"\)/);
  // env values: numbers and booleans as text; an object as its JSON (Common.mergeEnvironmentVariables).
  assert.deepEqual(one({ env: { N: 3, B: false, O: { a: [1] } } }).apps[0].env, { N: '3', B: 'false', O: '{"a":[1]}' });
  // port sets PORT over env and env_<name> (Common.prepareAppConf); a log path of NULL writes nothing.
  const port = load({ apps: [{ name: 'a', script: 'app.js', port: '4000', env: { PORT: 3000 }, out_file: 'NULL' }] });
  assert.deepEqual([port.apps[0].env.PORT, port.apps[0].out_file], ['4000', '/dev/null']);
  // A log file's missing directory is created, as PM2 does (superd's own files: refused, E_LOG_PATH).
  assert.equal(port.apps[0].logs.createFileDirs, true);
  assert.equal(load('apps:\n  - { name: a, script: app.js, ready_on: listen }\n', yml).apps[0].logs.createFileDirs, undefined);
  assert.match(port.warnings[0], /apps\[0\]\.env\.PORT: ignored: port 4000 sets PORT, as in PM2/);
  const cron = one({ cron_restart: '0' });
  assert.equal(cron.apps[0].cron_restart, null);
  assert.match(cron.warnings[0], /apps\[0\]\.cron_restart: 0 turns cron restarts off \(as in PM2\): ignored/);
});

test('two names for one key: silent when they agree, PM2\'s choice with a warning when not', () => {
  const agree = one({ merge_logs: false, combine_logs: false, error_file: 'e.log', err: 'e.log' });
  assert.deepEqual([agree.apps[0].merge_logs, agree.apps[0].error_file, agree.warnings], [false, path.join(dir, 'e.log'), []]);
  // The key itself wins when truthy, else the first truthy other name (Config.validateJSON).
  const differ = one({ merge_logs: false, combine_logs: true, output: 'b.log', out_log: 'a.log', interpreter: 'sh', exec_interpreter: 'node' });
  assert.deepEqual([differ.apps[0].merge_logs, differ.apps[0].out_file, differ.apps[0].interpreter], [true, path.join(dir, 'a.log'), 'node']);
  assert.deepEqual(differ.warnings.map((w) => w.replace(/^.*?: apps/, 'apps')).sort(), [
    'apps[0].interpreter: ignored: exec_interpreter is given too, with another value, and PM2 uses exec_interpreter',
    'apps[0].merge_logs: ignored: combine_logs is given too, with another value, and PM2 uses combine_logs',
    'apps[0].output: ignored: out_log is given too, with another value, and PM2 uses out_log',
  ]);
  const camel = one({ maxMemoryRestart: '200M', nodeArgs: '--no-warnings', execMode: 'fork', logDateFormat: 'YYYY' }).apps[0];
  assert.deepEqual([camel.max_memory_restart, camel.node_args, camel.exec_mode, camel.log_date_format], [200 * 1024 ** 2, ['--no-warnings'], 'fork', 'YYYY']);
  assert.equal(load({ apps: [{ name: 'c', cmd: 'app.js' }] }).apps[0].script, path.join(dir, 'app.js'));
  assert.equal(load({ apps: [{ name: 'c', exec: 'app.js' }] }).apps[0].script, path.join(dir, 'app.js'));
  // A typo is still a typo.
  assert.match(problems(() => one({ combine_log: true }))[0], /apps\[0\]\.combine_log: unknown key; did you mean "combine_logs"\?/);
});

test('a false, 0 or empty value PM2 reads as not set: dropped with a warning where superd would refuse it, kept where it takes it', () => {
  const eco = one({ log_date_format: false, out_file: '', merge_logs: false, restart_delay: 0, max_memory_restart: 0 });
  const a = eco.apps[0];
  assert.equal(a.log_date_format, null);
  assert.equal(a.out_file, null);
  assert.equal(a.merge_logs, false, 'a value superd takes means what it says');
  assert.equal(a.restart_delay, 0);
  assert.equal(a.max_memory_restart, 0);
  const warned = eco.warnings.filter((w) => /is read as not set, as PM2 reads it: ignored$/.test(w));
  assert.deepEqual(warned.map((w) => /apps\[0\]\.(\w+):/.exec(w)[1]).sort(), ['log_date_format', 'out_file']);
  // superd's own YAML keeps its strictness.
  assert.match(problems(() => load('apps:\n  - { name: a, script: app.js, log_date_format: false, probation: 1s }\n', yml))[0], /log_date_format: must be a date format/);
});

test('no name, or "undefined": named after the script, as PM2 does; two such names are refused', () => {
  const eco = load({ apps: [{ script: 'app.js' }, { name: 'undefined', script: 'api/server.mjs' }] });
  assert.deepEqual(eco.apps.map((a) => a.name), ['app', 'server']);
  assert.deepEqual(eco.warnings.map((w) => w.replace(/^.*?: apps/, 'apps')), [
    'apps[0]: no name: named "app" after its script, as PM2 does',
    'apps[1].name: name is "undefined" (a variable that is not set?): named "server" after its script, as PM2 does',
  ]);
  assert.match(problems(() => load({ apps: [{ script: 'app.js' }, { script: './app.js' }] }))[0], /apps\[1\]\.name: has no name, and "app" \(after its script\) is the name of apps\[0\] on line 3; give each app its own name/);
});

test('append_env_to_name: the --env name is appended to the app name, as PM2 does', () => {
  const text = JSON.stringify({ apps: [{ name: 'api', script: 'app.js', append_env_to_name: true, env_staging: { A: 1 } }] });
  assert.equal(loadEcosystemText(text, json, { cpus: 2, env: 'staging' }).apps[0].name, 'api-staging');
  assert.equal(load(text).apps[0].name, 'api');
});

test('names: any text without control characters, invisible or bidi characters, except what commands would read otherwise', () => {
  for (const name of ['Billing API Server', 'api (v2)', 'Ünïcødé', 'a.b_c-d', '3000-api', 'api.example.com/hawk']) assert.equal(one({ name }).apps[0].name, name);
  for (const name of ['all', '3000', '-api', '/srv/api', 'a\tb', 'a\u0000', 'x'.repeat(65), 'api\u200b', 'a\u202eb', '\u2066api']) {
    assert.match(problems(() => one({ name }))[0], /apps\[0\]\.name: must be a name of 1 to 64 characters without control characters or invisible or bidi format characters, and not "all" \(every app\), a bare number \(an app id\) or starting with "-" \(an option\) or "\/" \(a path\)/, name);
  }
  // Log files: PM2's names for a PM2 file (outside [A-Za-z0-9.-] as `-`); a `/` never names a directory.
  assert.equal(path.basename(one({ name: 'api.example.com/hawk' }).apps[0].logs.err), 'api.example.com-hawk-error.log');
  assert.equal(path.basename(load('apps:\n  - { name: "a b/c", script: app.js }\n', yml).apps[0].logs.out), 'a b-c-out.log');
  assert.equal(one({ namespace: 'Billing Team' }).apps[0].namespace, 'Billing Team');
});

test('which files are PM2\'s: JS, TS and JSON always; YAML unless it uses a key only superd has', () => {
  for (const f of ['e.config.js', 'e.cjs', 'e.mjs', 'e.ts', 'e.json']) assert.equal(isPm2Format(f, { apps: [{ ready_on: 'listen' }] }), true, f);
  assert.equal(isPm2Format('e.yml', { apps: [{ name: 'a', script: 'a.js', output: 'o.log' }] }), true);
  assert.equal(isPm2Format('e.yaml', { apps: { name: 'a', ready_on: 'listen' } }), false);
  assert.equal(isPm2Format('e.yml', [{ name: 'a', probation: '1s' }]), false);
  assert.equal(isPm2Format('e.yml', { apps: [], logs: { dir: '/tmp' } }), false);
  // Read with superd's strictness: apps must be a list, and a name is required.
  assert.match(problems(() => load('apps:\n  name: m\n  script: app.js\n  ready_on: listen\n', yml))[0], /eco\.yml:2:3: apps: must be a non-empty list of apps/);
});

test('PM2\'s key table matches PM2 7\'s own schema (node_modules/pm2)', (t) => {
  const file = fileURLToPath(new URL('../../node_modules/pm2/lib/API/schema.json', import.meta.url));
  if (!fs.existsSync(file)) return t.skip('pm2 (a devDependency) is not installed');
  const schema = JSON.parse(fs.readFileSync(file, 'utf8'));
  const keys = Object.keys(schema).filter((k) => !k.includes('\\'));
  assert.deepEqual([...PM2_KEYS].sort(), keys.sort());
  for (const k of keys) {
    const listed = [].concat(schema[k].alias ?? []).reverse(); // the order PM2's Config.schema getter makes
    const ours = (PM2_ALIASES[k] ?? []).filter((a) => !['cmd', 'command'].includes(a));
    assert.deepEqual(ours, listed, k);
    assert.equal(PM2_NUMBER_KEYS.has(k), [].concat(schema[k].type).includes('number'), k);
  }
  assert.equal(camelCase('max_memory_restart'), 'maxMemoryRestart');
});

test('instance_var and increment_var: any variable name PM2 takes (a dash included), never one with "="', () => {
  const a = one({ instance_var: 'my-backend', increment_var: 'PORT' }).apps[0];
  assert.equal(a.instance_var, 'my-backend');
  assert.match(problems(() => one({ instance_var: 'A=B' }))[0], /instance_var: must be an environment variable name \(any text without "="/);
});
