// `super import pm2` against what the real PM2 (the pm2 devDependency) writes: a dump of
// apps it started, and PM2 ecosystem files; the result must load in superd and run.
import test, { before, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { execFile, execFileSync } from 'node:child_process';
import yaml from 'js-yaml';
import { loadEcosystem } from '../../lib/config/index.js';
import { mapApp } from '../../lib/pm2/map-app.js';
import { PM2_ONLY } from '../../lib/config/pm2-keys.js';
import { dumpApps } from '../../lib/pm2/dump-apps.js';
import { importPm2 } from '../../lib/pm2/index.js';
import { ROOT, sandbox, superCli, freePort, httpGet, waitGone, alive } from '../helpers/harness.js';

const PM2 = path.join(ROOT, 'node_modules', '.bin', 'pm2');

const WEB = `const http = require('node:http');
http.createServer((req, res) => res.end(JSON.stringify({ pid: process.pid, greeting: process.env.GREETING ?? null })))
  .listen(Number(process.env.PORT));
`;
const JOB = 'setInterval(() => {}, 1000);\n';

// One PM2 run for the whole file: a temporary PM2_HOME (short: PM2 puts its sockets there),
// two apps started by the real PM2, `pm2 save`, `pm2 kill`.
const pm2 = { root: null, home: null, apps: null, port: null, pids: [] };

function runPm2(args, env = {}) {
  return new Promise((resolve) => {
    execFile(PM2, args, { cwd: pm2.apps, env: { ...process.env, PM2_HOME: pm2.home, ...env }, timeout: 60000 }, (err, stdout, stderr) => {
      resolve({ code: err ? (err.code ?? 1) : 0, stdout, stderr });
    });
  });
}

/** Processes whose command line names this PM2_HOME (PM2's God daemon does). */
function pm2Processes() {
  const found = [];
  for (const name of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    try {
      if (fs.readFileSync(`/proc/${name}/cmdline`, 'utf8').includes(pm2.home)) found.push(Number(name));
    } catch {}
  }
  return found;
}

const pm2DaemonPid = () => {
  try {
    return Number(fs.readFileSync(path.join(pm2.home, 'pm2.pid'), 'utf8'));
  } catch {
    return null;
  }
};

async function killPm2() {
  const daemon = pm2DaemonPid();
  await runPm2(['kill']);
  const left = await waitGone([...pm2.pids, ...(daemon ? [daemon] : [])], 10000);
  for (const pid of left) process.kill(pid, 'SIGKILL');
  return left;
}

before(async () => {
  pm2.root = fs.mkdtempSync(path.join(os.tmpdir(), 'pm2-'));
  pm2.home = path.join(pm2.root, 'home');
  pm2.apps = path.join(pm2.root, 'apps');
  fs.mkdirSync(pm2.apps);
  fs.writeFileSync(path.join(pm2.apps, 'web.js'), WEB);
  fs.writeFileSync(path.join(pm2.apps, 'job.js'), JOB);
  pm2.port = await freePort();
  try {
    const web = await runPm2(['start', 'web.js', '-i', '2', '--name', 'web', '--max-memory-restart', '200M'], { GREETING: 'hello-from-pm2', PORT: String(pm2.port) });
    assert.equal(web.code, 0, web.stderr);
    // From an ecosystem file (PM2 then adds a variable named after the app: job: '{}'), and
    // as if run from inside a PM2-managed process, whose environment holds PM2's fields.
    fs.writeFileSync(path.join(pm2.apps, 'job.config.js'), `module.exports = { apps: [{ name: 'job', script: 'job.js', args: ['--mode', 'fast'], env: { QUEUE: 'jobs' } }] };\n`);
    const job = await runPm2(['start', 'job.config.js'], { pm_id: '3', unique_id: 'abc', km_link: 'false', vizion_running: 'false', node_version: '20.0.0', axm_monitor: '{}' });
    assert.equal(job.code, 0, job.stderr);
    const list = JSON.parse((await runPm2(['jlist'])).stdout);
    pm2.pids = list.map((p) => p.pid).filter((pid) => pid > 0);
    assert.equal(pm2.pids.length, 3, 'PM2 runs 2 web workers and 1 job');
    const saved = await runPm2(['save']);
    assert.equal(saved.code, 0, saved.stderr);
  } finally {
    const left = await killPm2();
    assert.deepEqual(left, [], 'pm2 kill stopped its daemon and apps');
  }
});

after(async () => {
  if (!pm2.root) return;
  if (pm2Processes().length || pm2.pids.some(alive)) await killPm2();
  const left = [...pm2Processes(), ...pm2.pids.filter(alive)];
  for (const pid of left) process.kill(pid, 'SIGKILL');
  fs.rmSync(pm2.root, { recursive: true, force: true });
  assert.deepEqual(left, [], 'nothing of PM2 is left running');
});

test('PM2 is gone after pm2 kill: no daemon, no app', () => {
  assert.ok(fs.existsSync(path.join(pm2.home, 'dump.pm2')), 'pm2 save wrote dump.pm2');
  assert.deepEqual(pm2Processes(), []);
  assert.deepEqual(pm2.pids.filter(alive), []);
});

test('the dump the real PM2 wrote becomes an ecosystem.yml superd loads, and its workers serve', async (t) => {
  const box = await sandbox(t);
  const out = path.join(box.dir, 'ecosystem.yml');
  const r = await superCli(box.home, ['import', 'pm2', '--pm2-home', pm2.home, '--out', out], { cwd: box.dir });
  assert.equal(r.code, 0, r.stderr);
  assert.match(r.stdout, /wrote .*ecosystem\.yml from .*dump\.pm2: 2 app\(s\): web, job/);
  assert.doesNotMatch(r.stderr, /warning/, 'superd loads what it wrote');

  // What was left out is on stderr and, the same, as comments at the top of the file.
  const text = fs.readFileSync(out, 'utf8');
  const notes = r.stderr.trim().split('\n').map((l) => l.replace(/^super: import: /, ''));
  assert.ok(notes.some((n) => /^web: out_file, error_file: PM2's default files/.test(n)), r.stderr);
  for (const n of notes) assert.ok(text.includes(`#   - ${n}\n`), `note in the file: ${n}`);

  const { apps } = yaml.load(text);
  const [web, job] = apps;
  assert.deepEqual({ ...web, env: undefined }, {
    name: 'web', script: path.join(pm2.apps, 'web.js'), cwd: pm2.apps, exec_mode: 'cluster', instances: 2, env: undefined, max_memory_restart: '200M',
  });
  // The app's own variables, not PM2's, not the login session's, not those equal to this shell's.
  assert.deepEqual(web.env, { GREETING: 'hello-from-pm2', PORT: String(pm2.port) });
  // Only what the user set: none of PM2's per-process fields, nor its module stash `job: '{}'`.
  assert.deepEqual(job, { name: 'job', script: path.join(pm2.apps, 'job.js'), args: ['--mode', 'fast'], cwd: pm2.apps, exec_mode: 'fork', instances: 1, env: { QUEUE: 'jobs' } });

  const loaded = await loadEcosystem(out);
  assert.deepEqual(loaded.apps.map((a) => [a.name, a.exec_mode, a.instances]), [['web', 'cluster', 2], ['job', 'fork', 1]]);

  const started = await box.cli(['start', out]);
  assert.equal(started.code, 0, started.stderr);
  const pids = new Set();
  for (let i = 0; i < 40 && pids.size < 2; i++) {
    const { status, body } = await httpGet(pm2.port);
    assert.equal(status, 200);
    const answer = JSON.parse(body);
    assert.equal(answer.greeting, 'hello-from-pm2');
    pids.add(answer.pid);
  }
  assert.equal(pids.size, 2, 'both imported cluster workers serve');
});

test('a PM2 ecosystem JSON file: PM2 keys map to superd\'s, PM2-only keys are listed', async (t) => {
  const box = await sandbox(t);
  box.write('app/server.js', WEB);
  const file = box.write('pm2/ecosystem.json', JSON.stringify({
    apps: [{
      name: 'api',
      script: 'server.js',
      cwd: '../app',
      exec_mode: 'cluster_mode',
      instances: '2',
      interpreter_args: '--max-old-space-size=256',
      output: 'out.log',
      error: 'err.log',
      combine_logs: true,
      max_memory_restart: '300M',
      min_uptime: '5s',
      max_restarts: 5,
      restart_delay: 100,
      exp_backoff_restart_delay: 200,
      kill_timeout: 3000,
      listen_timeout: '10s',
      wait_ready: false,
      watch: false,
      log_type: 'json',
      ignore_watch: ['node_modules'],
      instance_var: 'INSTANCE_ID',
      env: { NODE_ENV: 'development', PORT: 3000 },
      env_production: { NODE_ENV: 'production' },
      vizion: false,
      pmx: false,
      treekill: true,
    }, { script: 'server.js', cwd: '../app', port: 4000 }],
    deploy: { production: { user: 'node', host: 'example.com', ref: 'origin/main', repo: 'git@example.com:app.git', path: '/srv/app' } },
  }, null, 2));
  const out = path.join(box.dir, 'ecosystem.yml');
  const r = await superCli(box.home, ['import', 'pm2', '--file', file, '--out', out], { cwd: box.dir });
  assert.equal(r.code, 0, r.stderr);
  assert.doesNotMatch(r.stderr, /warning/, 'superd loads what it wrote');
  assert.equal(fs.statSync(out).mode & 0o777, 0o600, 'it holds the apps\' env values (secrets): readable by its owner only, as superd\'s dump');
  for (const key of ['deploy', 'api: vizion', 'api: pmx', 'api: treekill']) assert.match(r.stderr, new RegExp(`^super: import: ${key}: left out: `, 'm'));
  // PM2's json log lines are superd's pm2-json (superd's json is pino's line)
  assert.match(r.stderr, /^super: import: api: log_type: "json" written as "pm2-json"/m);

  const { apps } = yaml.load(fs.readFileSync(out, 'utf8'));
  assert.deepEqual(apps[0], {
    name: 'api',
    script: 'server.js',
    cwd: 'app',
    exec_mode: 'cluster',
    instances: 2,
    node_args: '--max-old-space-size=256',
    env: { NODE_ENV: 'development', PORT: 3000 },
    out_file: 'out.log',
    error_file: 'err.log',
    merge_logs: true,
    max_memory_restart: '300M',
    min_uptime: '5s',
    max_restarts: 5,
    restart_delay: 100,
    exp_backoff_restart_delay: 200,
    kill_timeout: 3000,
    listen_timeout: '10s',
    wait_ready: false,
    log_type: 'pm2-json',
    ignore_watch: ['node_modules'],
    instance_var: 'INSTANCE_ID',
    env_production: { NODE_ENV: 'production' },
  });
  // PM2 names an unnamed app after its script, runs it in fork mode, and turns `port` into PORT.
  assert.deepEqual(apps[1], { name: 'server', script: 'server.js', cwd: 'app', exec_mode: 'fork', env: { PORT: '4000' } });
  const loaded = await loadEcosystem(out, { env: 'production' });
  assert.equal(loaded.apps[0].cwd, path.join(box.dir, 'app'));
  assert.equal(loaded.apps[0].env.NODE_ENV, 'production');
});

test('a PM2 ecosystem.config.js is evaluated in a child process, with its directory as cwd', async (t) => {
  const box = await sandbox(t);
  box.write('server.js', WEB);
  const file = box.write('ecosystem.config.js', `const path = require('node:path');
module.exports = { apps: [{ name: 'api', script: path.join(__dirname, 'server.js'), env: { FROM: process.env.IMPORT_FROM, CWD: process.cwd() } }] };
`);
  const out = path.join(box.dir, 'super.yml');
  const r = await superCli(box.home, ['import', 'pm2', '--file', file, '--out', out], { env: { IMPORT_FROM: 'the-caller' } });
  assert.equal(r.code, 0, r.stderr);
  const { apps } = yaml.load(fs.readFileSync(out, 'utf8'));
  assert.deepEqual(apps[0].env, { FROM: 'the-caller', CWD: fs.realpathSync(box.dir) });
  await loadEcosystem(out);

  const throws = box.write('throws.config.js', 'throw new Error("no config here");\n');
  const bad = await superCli(box.home, ['import', 'pm2', '--file', throws, '--out', '-']);
  assert.equal(bad.code, 2);
  assert.match(bad.stderr, /^super: E_IMPORT: .*throws\.config\.js:1:\d+: the file threw Error: no config here; .*\n$/);
});

test('bad input: one coded line, exit 2, nothing written', async (t) => {
  const box = await sandbox(t);
  const out = path.join(box.dir, 'ecosystem.yml');
  const cli = (args) => superCli(box.home, ['import', 'pm2', ...args], { cwd: box.dir });

  const missing = await cli(['--pm2-home', path.join(box.dir, 'no-pm2'), '--out', out]);
  assert.equal(missing.code, 2);
  assert.match(missing.stderr, /^super: E_IMPORT: no PM2 dump at .*no-pm2\/dump\.pm2; run `pm2 save`[^\n]*\n$/);
  assert.ok(!fs.existsSync(out));

  const corrupt = path.join(box.dir, 'corrupt');
  box.write('corrupt/dump.pm2', '[{"name": "web", "pm_exec_path": ');
  // The reading's refusals in-process: the CLI's line and exit status are checked above.
  await assert.rejects(importPm2({ pm2Home: corrupt, out }), { code: 'E_IMPORT', message: /^\S*dump\.pm2 is corrupt \(not valid JSON: [^\n]*\); PM2 keeps the previous one: try --file .*dump\.pm2\.bak$/ });
  assert.ok(!fs.existsSync(out));

  box.write('other/dump.pm2', '{"apps": []}');
  await assert.rejects(importPm2({ pm2Home: path.join(box.dir, 'other'), out }), { code: 'E_IMPORT', message: /^\S*dump\.pm2 is not a PM2 dump/ });

  fs.writeFileSync(out, 'mine\n', { mode: 0o600 });
  const exists = await cli(['--pm2-home', pm2.home, '--out', out]);
  assert.equal(exists.code, 2);
  assert.match(exists.stderr, /^super: E_IMPORT: .*ecosystem\.yml exists; give another --out, or --force to replace it\n$/);
  assert.equal(fs.readFileSync(out, 'utf8'), 'mine\n', 'the existing file is untouched');
  const forced = await cli(['--pm2-home', pm2.home, '--out', out, '--force']);
  assert.equal(forced.code, 0, forced.stderr);
  assert.match(fs.readFileSync(out, 'utf8'), /^apps:\n {2}- name: web$/m);
  assert.equal(fs.statSync(out).mode & 0o777, 0o600, 'the file replaced kept its permissions');

  const from = await superCli(box.home, ['import', 'forever']);
  assert.equal(from.code, 2);
  assert.match(from.stderr, /^super: E_USAGE: cannot import from "forever"; superd imports from: pm2\n$/);
});

// Keys superd reads under PM2's own name once lib/config accepts them (cron_restart,
// increment_var, namespace, ...): carried over as they are. Not loaded here: today's
// config/schema.json does not list them yet.
test('PM2-named keys are carried over under their PM2 names', () => {
  const { app, notes } = mapApp({
    name: 'api', script: 'a.js', instances: 4, cron_restart: '0 3 * * *', cron: 'ignored: cron_restart wins',
    increment_var: 'PORT', namespace: 'back', source_map_support: true, autostart: false, log: 'all.log', interpreter: 'bun',
  }, { baseDir: '/srv', outDir: '/srv' });
  assert.deepEqual(app, {
    name: 'api', namespace: 'back', script: 'a.js', exec_mode: 'fork', instances: 4, interpreter: 'bun',
    cron_restart: '0 3 * * *', increment_var: 'PORT', source_map_support: true, autostart: false, log_file: 'all.log',
  });
  assert.deepEqual(notes, []);
});

test('import and super start read PM2\'s keys from one table: the same reason for a PM2-only key, cmd as script', () => {
  const only = Object.keys(PM2_ONLY.app).filter((k) => k !== 'pid'); // pid is pid_file's other name
  const { app, notes } = mapApp({
    name: 'api', cmd: 'a.js', disable_source_map_support: true, ...Object.fromEntries(only.map((k) => [k, 'x'])),
  }, { baseDir: '/srv', outDir: '/srv' });
  assert.deepEqual(app, { name: 'api', script: 'a.js', exec_mode: 'fork', disable_source_map_support: true });
  assert.deepEqual(notes, only.map((k) => `api: ${k}: left out: ${PM2_ONLY.app[k]}`));
});

test('filter_env and watch_options are carried over as written: superd honours them now', () => {
  const { app, notes } = mapApp({
    name: 'api', script: 'a.js', filter_env: ['AWS_', 'SECRET'], watch: ['src'], watch_options: { usePolling: true, interval: 1000 },
  }, { baseDir: '/srv', outDir: '/srv' });
  assert.deepEqual([app.filter_env, app.watch_options], [['AWS_', 'SECRET'], { usePolling: true, interval: 1000 }]);
  assert.deepEqual(notes, []);
});

test('instances: max and -1 are kept as written; a dump, which keeps only the count, gets a note', () => {
  for (const spec of ['max', -1, '-1', 0, 3]) {
    const { app } = mapApp({ name: 'api', script: 'a.js', instances: spec }, { baseDir: '/srv', outDir: '/srv' });
    assert.equal(app.instances, spec === '-1' ? -1 : spec);
  }
  const entry = (i) => ({ name: 'api', pm_exec_path: '/srv/a.js', pm_cwd: '/srv', exec_mode: 'cluster_mode', exec_interpreter: 'node', env: { NODE_APP_INSTANCE: i } });
  const four = [0, 1, 2, 3].map(entry);
  const note = (cpus) => dumpApps(four, { pm2Home: null, here: {}, cpus }).notes.find((n) => n.includes('instances'));
  assert.match(note(4), /^api: instances: 4 is how many processes PM2 ran \(its dump keeps no `instances`\); if PM2 was given max \(one per CPU\), write instances: max$/);
  assert.match(note(5), /if PM2 was given -1 \(one per CPU but one\), write instances: -1$/);
  assert.equal(note(8), undefined);
});

// The bounds `super start` applies hold on every path import reads or writes. The bomb runs
// in a capped CLI (a heap bound and a timeout), so the test ends fast even without the bound.
test('bounds: a billion-laughs file is refused at once', async (t) => {
  const box = await sandbox(t);
  const out = path.join(box.dir, 'ecosystem.yml');
  // 9 aliases of 9 aliases ... of a list: 9^9 values in a few hundred bytes
  const levels = 'abcdefghi';
  const bomb = box.write('bomb.yml', [
    'a: &a [x, x, x, x, x, x, x, x, x]',
    ...[...levels.slice(1)].map((l, i) => `${l}: &${l} [${Array(9).fill(`*${levels[i]}`).join(', ')}]`),
    'apps: [{name: x, script: x.js, ignore_watch: *i}]',
  ].join('\n'));
  // Refused (exit 2, the count named), not killed by the 20 s bound or out of its 96 MB heap.
  const r = await superCli(box.home, ['import', 'pm2', '--file', bomb, '--out', out], { cwd: box.dir, timeout: 20000, env: { NODE_OPTIONS: '--max-old-space-size=96' } });
  assert.equal(r.code, 2, `${r.signal ?? ''} ${r.stderr.slice(0, 500)}`);
  assert.match(r.stderr, /^super: E_IMPORT: .*bomb\.yml holds more than 1000000 values once its YAML aliases \(\*name\) are expanded; [^\n]*\n$/);
  assert.ok(!fs.existsSync(out));
});

test('bounds: more apps than superd loads, an output larger than superd reads', async (t) => {
  const box = await sandbox(t);
  const out = path.join(box.dir, 'ecosystem.yml');
  const saved = process.env.SUPER_MAX_APPS;
  process.env.SUPER_MAX_APPS = '2';
  try {
    const three = box.write('three.json', JSON.stringify({ apps: ['a', 'b', 'c'].map((name) => ({ name, script: 'x.js' })) }));
    await assert.rejects(importPm2({ file: three, out }), { code: 'E_IMPORT', message: /three\.json has 3 apps, more than the 2 superd loads from one ecosystem file; .*SUPER_MAX_APPS/ });
  } finally {
    if (saved === undefined) delete process.env.SUPER_MAX_APPS;
    else process.env.SUPER_MAX_APPS = saved;
  }
  const big = box.write('big.json', JSON.stringify({ apps: [{ name: 'a', script: 'x.js', env: { BLOB: 'x'.repeat(1100 * 1024) } }] }));
  await assert.rejects(importPm2({ file: big, out }), { code: 'E_IMPORT', message: /^the ecosystem file for .*big\.json would be \d+ bytes, more than the 1048576 superd reads; / });
});

test('what import prints is escaped, and --force replaces a regular file only: never a symlink, a FIFO or a device', async (t) => {
  const box = await sandbox(t);
  const cli = (args) => superCli(box.home, ['import', 'pm2', ...args], { cwd: box.dir });
  const ESC = '\u001b]0;owned\u0007\u001b[2J\r';
  const hostile = box.write('hostile.json', JSON.stringify({ apps: [{ name: `api${ESC}`, script: 'x.js', [`key${ESC}`]: 1, env: { [`V${ESC}`]: { a: 1 } } }] }));
  const victim = box.write('victim.txt', 'root file\n');
  const out = path.join(box.dir, 'out.yml');
  fs.writeFileSync(out, 'old\n');

  const r = await cli(['--file', hostile, '--out', out, '--force']);
  assert.equal(r.code, 0, r.stderr);
  for (const [what, text] of [['stdout', r.stdout], ['stderr', r.stderr], ['the file', fs.readFileSync(out, 'utf8')]]) {
    assert.doesNotMatch(text, /[\u0000-\u0009\u000b-\u001f\u007f-\u009f]/, `no control character in ${what}`);
  }
  assert.match(r.stderr, /^super: import: api-\]0;owned-\[2J-: name: "api\\x1b\]0;owned\\x07\\x1b\[2J\\r" is not a superd app name/m);
  assert.match(r.stderr, /^super: import: api-\]0;owned-\[2J-: key\\x1b\]0;owned\\x07\\x1b\[2J\\r: left out/m);
  assert.deepEqual(fs.readdirSync(box.dir).filter((f) => f.endsWith('.tmp')), [], 'no temporary file is left');

  // Issue 36, item 5: `--out /dev/null --force` replaced the device with a regular file.
  const link = path.join(box.dir, 'link.yml');
  fs.symlinkSync(victim, link);
  const fifo = path.join(box.dir, 'fifo.yml');
  execFileSync('mkfifo', [fifo]);
  const dir = path.join(box.dir, 'dir.yml');
  fs.mkdirSync(dir);
  for (const [at, what] of [[link, 'a symbolic link'], [fifo, 'a FIFO'], [dir, 'a directory']]) {
    const refused = await cli(['--file', hostile, '--out', at, '--force']);
    assert.equal(refused.code, 2, refused.stderr);
    assert.match(refused.stderr, new RegExp(`^super: E_IMPORT: .*${path.basename(at)} is ${what}; --force replaces only a regular file`, 'm'));
  }
  assert.equal(fs.readFileSync(victim, 'utf8'), 'root file\n', 'the link\'s target is untouched');
  assert.ok(fs.lstatSync(link).isSymbolicLink() && fs.lstatSync(fifo).isFIFO() && fs.lstatSync(dir).isDirectory(), 'each is left as it was');
  assert.deepEqual(fs.readdirSync(box.dir).filter((f) => f.endsWith('.tmp')), [], 'no temporary file is left');

  // An error names what the user gave: escaped as well.
  const missing = await cli(['--file', path.join(box.dir, `gone${ESC}.json`), '--out', '-']);
  assert.equal(missing.code, 2);
  assert.match(missing.stderr, /^super: E_IMPORT: no such file: .*gone\\x1b\]0;owned\\x07\\x1b\[2J\\r\.json; check the path\n$/);
});

test('names are kept as superd takes them (spaces included); only what no superd name can be is renamed', () => {
  const named = (name) => mapApp({ name, script: 'a.js' }, { baseDir: '/srv', outDir: '/srv' });
  assert.equal(named('Billing API Server').app.name, 'Billing API Server');
  assert.deepEqual(named('Billing API Server').notes, []);
  assert.equal(named('api.example.com/hawk').app.name, 'api.example.com/hawk');
  assert.equal(named('/srv/api').app.name, 'srv/api');
  assert.equal(named('all').app.name, 'app-all');
  assert.equal(named('42').app.name, 'app-42');
  assert.equal(named('-x').app.name, 'x');
  for (const n of ['/srv/api', 'all', '42']) assert.match(named(n).notes[0], /is not a superd app name; renamed/);
});
