// PM2 itself as the oracle: PM2-format files (the corpus test/fixtures/pm2/ and generated
// variations of each key's spellings, types, string and number forms, relative paths with
// and without cwd, started from another directory, several apps, env blocks, JS, JSON and
// YAML) are started under the real PM2 (the devDependency, one daemon with a private
// PM2_HOME, killed at the end even on failure), and what PM2 resolved (`pm2 jlist`) and
// what really runs (/proc: cwd, argv) is compared field by field with what superd resolves
// (`super check --json`, run from the same directory). Every difference is either none or
// listed in DELIBERATE (docs/pm2.md, "How superd reads a PM2 file", gives the reasons);
// a listed difference that no longer occurs fails too. Every key of lib/config/pm2-keys.js
// must be used by a variation or named in NOT_COMPARED with the reason.
import test, { describe } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { sandbox, ROOT, FIXTURES, lsJson, describeJson, runProcess } from '../helpers/harness.js';
import { PM2_KEYS, PM2_TOP_KEYS } from '../../lib/config/pm2-keys.js';
import { eventually } from '../helpers/wait.js';
import { request } from '../helpers/requests.js';
import { pm2Names } from '../../lib/config/pm2-format.js';
import { privatePm2 } from '../helpers/pm2.js';
const IDLE = 'setInterval(() => {}, 1000);\n';

/** Keys no variation uses, and why. */
const NOT_COMPARED = {
  uid: 'needs a root daemon (PM2 and superd both refuse it otherwise)',
  gid: 'needs a root daemon',
  username: 'PM2 sets it itself (who ran pm2 start)',
  install_url: "PM2's module install: pm2 start never reads it",
  execute_command: 'PM2 internal, set by its CLI (-x)',
  write: 'PM2 internal',
  io: "PM2.io's settings: needs PM2 Plus",
  windowsHide: 'Windows only',
  trace: 'PM2 requires OpenTelemetry packages for it',
  deep_monitoring: 'PM2 requires OpenTelemetry packages for it',
  force: "PM2's CLI flag (starting a script twice)",
  static: "PM2's static file server (pm2 serve); superd has none",
  deploy: 'pm2 deploy, never run by pm2 start',
  pm2: 'the app list under another name: covered by the corpus',
  name_prefix: "PM2's CLI naming",
  filter_env: 'filters the environment of the pm2 start shell: test/pm2/filter-env-oracle.test.js compares it',
  append_env_to_name: 'needs --env; test/config/pm2-reading.test.js covers it',
  post_update: "PM2's dashboard",
};

/**
 * Deliberate differences: `<variation>/<app>.<field>` -> why (docs/pm2.md says it too).
 * Each must occur, so that a fix that removes one also removes it here.
 */
const DELIBERATE = {
  'rel/rel-b.log_files': 'log_file: PM2 writes a third file with both streams besides its default out and error files; superd writes both streams to that one file',
  // A YAML file keeps superd's defaults (pm2-format.js takesPm2Defaults): PM2's YAML and
  // superd's cannot be told apart when they use only shared keys.
  'yaml/yaml-a.log_files': "YAML keeps superd's log defaults: the instances share <name>-out.log and <name>-err.log",
  'yaml/yaml-b.log_files': "YAML keeps superd's log defaults: the instances share <name>-out.log and <name>-err.log",
  'yaml/yaml-c.exec_mode': 'YAML keeps superd\'s default: a Node script runs in cluster mode (zero-downtime reloads)',
  'yaml/yaml-c.log_files': "YAML keeps superd's log defaults: <name>-err.log",
  'yaml/yaml-d.log_files': "YAML keeps superd's log defaults: <name>-err.log",
  'npm/npm-a.node_args': 'PM2 gives node_args to the Node that runs npm (node <node_args> npm start), not to the app npm starts; superd runs npm as it is and says node_args is ignored',
  'npm/npm-a.interpreter': 'PM2 runs npm with Node; superd runs npm as it is (its #! line runs Node)',
  'apps-mapping.yml/answer.log_files': "YAML keeps superd's log defaults: <name>-err.log, one file per stream",
  'ecosystem.yml/yaml-api.log_files': "YAML keeps superd's log defaults: <name>-err.log, one file per stream",
  'ecosystem.yml/yaml-worker.log_files': "YAML keeps superd's log defaults: <name>-err.log",
  'npm-start.config.js/web.interpreter': 'PM2 runs npm with Node; superd runs npm as it is (its #! line runs Node)',
  'unnamed.config.js/worker': 'PM2 keeps the name "undefined" (a variable that is not set); superd names the app after its script, with a warning',
  'ecosystem.config.ts': 'PM2 7 runs no app of it: without bun it refuses TypeScript before Node 22.18, and takes no apps from its `export default` after; superd strips the types',
  'ecosystem.config.mjs': "PM2 7 reads no `export default` of an .mjs file (No script path); superd does",
  'pm2-init-es.config.mjs': "PM2 7 reads no `export default` of an .mjs file (No script path), its own `pm2 init` template; superd does",
  'npm-start.config.js/web.real.pwd': 'PM2 sets PWD to cwd as written ("./app"), relative; superd to the directory the app runs in, absolute',
  'cwd/cwd-a.real.pwd': 'PM2 sets PWD to cwd as written ("sub"), relative; superd to the directory the app runs in, absolute',
  'cwd/cwd-b.real.pwd': 'PM2 sets PWD to cwd as written ("../proj"), relative; superd to the directory the app runs in, absolute',
};

// Runs `pm2 start` as PM2's CLI does (API.start of a file, from the directory it runs in,
// with PWD as a shell sets it: PM2 passes its environment on), in groups; writes each
// group's jlist, with what runs (/proc), to a file, then deletes the apps whose names a
// later group reuses.
const PM2_DRIVER = `const fs = require('fs');
const API = require(process.argv[2]);
const call = (pm2, op, ...args) => new Promise((resolve, reject) => pm2[op](...args, (err, out) => (err ? reject(err) : resolve(out))));
(async () => {
  const out = [];
  const pm2 = new API.custom();
  await call(pm2, 'connect');
  for (const { jobs, clear } of JSON.parse(process.argv[3])) {
    const errors = {};
    for (const { id, file, from, env } of jobs) {
      process.chdir(from);
      process.env.PWD = from;
      pm2.cwd = from; // what API's constructor sets from the directory it runs in
      await call(pm2, 'start', file, env ? { env } : {}).catch((err) => { errors[id] = String(err?.message ?? err); });
    }
    const list = await call(pm2, 'list');
    // What runs, read before the group is deleted: each process's cwd, argv and PWD.
    for (const p of list) {
      try {
        const environ = fs.readFileSync('/proc/' + p.pid + '/environ', 'utf8').split('\\0');
        p.real = { cwd: fs.readlinkSync('/proc/' + p.pid + '/cwd'), argv: fs.readFileSync('/proc/' + p.pid + '/cmdline', 'utf8').split('\\0').slice(0, -1), pwd: environ.find((kv) => kv.startsWith('PWD='))?.slice(4) };
      } catch { /* exited (a corpus app that crashes under PM2) */ }
    }
    out.push({ list, errors });
    for (const name of clear) await call(pm2, 'delete', name).catch(() => {}); // names a later group reuses
  }
  fs.writeFileSync(process.argv[4], JSON.stringify(out));
  process.exit(0);
})().catch((err) => { console.error(err); process.exit(1); });
`;

/** The corpus test/fixtures/pm2/ files the oracle starts, with their `--env`. */
const CORPUS_ARGS = Object.fromEntries([
  'apps-mapping.yml', 'autostart.config.js', 'bare-list.json', 'deploy.config.js', 'ecosystem.config.js', 'ecosystem.config.mjs', 'ecosystem.config.ts',
  'ecosystem.yml', 'env-logic.config.js', 'esm-server.config.cjs', 'increment-var.config.js', 'logs.config.js', 'multi-app.config.js', 'node-args.config.js',
  'npm-start.config.js', 'one-app.config.js', 'pm2-init.config.js', 'pm2-init-es.config.mjs', 'process.json', 'shell-job.config.js', 'spaced-name.config.js',
  'string-numbers.json', 'two-spellings.config.js', 'unnamed.config.js',
].map((f) => [f, {}]).concat([['cluster-max.config.js', { env: 'production' }], ['ecosystem.json', { env: 'production' }], ['full-keys.config.js', { env: 'production' }]]));

const asList = (v) => (v === undefined || v === null ? [] : [].concat(v));

/**
 * @typedef {object} Variation  a file the oracle starts
 * @property {string} id
 * @property {string} from  the directory pm2/super start run in, under the sandbox
 * @property {string} [file]  under the sandbox (a generated variation)
 * @property {'js'|'json'|'raw'} [form]  how it is written: raw is `text` as is
 * @property {Record<string, any>[]} [apps]  the apps it holds (a generated variation)
 * @property {string} [text]
 * @property {boolean} [single]  one app without a list
 * @property {string} [path]  absolute, once written
 * @property {string} [env]  --env
 * @property {number} [group]  its group of starts under PM2
 */

/** The generated variations. @returns {Variation[]} */
function variations() {
  return [
    // 1. relative script and log paths without cwd: resolved where `start` runs, not by the file
    { id: 'rel', file: 'proj/config/pm2/rel.config.js', from: 'proj', form: 'js', apps: [
      { name: 'rel-a', script: 'idle.js', out_file: 'logs/rel-a.out', error_file: 'logs/rel-a.err' },
      { name: 'rel-b', script: './sub/idle.js', args: '--port 1 --name "two words"', log_file: 'logs/rel-b.log' },
      // per process: only a .log path gets the number (an -N.log ending replaced); NULL is /dev/null
      { name: 'rel-c', script: 'idle.js', instances: 2, out_file: 'logs/rel-c.out', error_file: 'NULL' },
      { name: 'rel-d', script: 'idle.js', instances: 2, exec_mode: 'fork', error_file: 'logs/rel-d-7.log' },
    ] },
    // relative cwd, and the same file started from another directory
    { id: 'cwd', file: 'proj/config/cwd.config.js', from: 'proj', form: 'js', apps: [
      { name: 'cwd-a', script: 'idle.js', cwd: 'sub', out: 'o.log' },
      { name: 'cwd-b', script: 'idle.js', cwd: path.join('..', 'proj') },
    ] },
    { id: 'other', file: 'proj/other.config.js', from: 'elsewhere', form: 'js', apps: [
      { name: 'other-a', script: '../proj/idle.js' },
    ] },
    // 5. a .json file read as a JavaScript expression
    { id: 'json5', file: 'proj/json5.json', from: 'proj', form: 'raw', apps: [{ name: 'json5-a' }, { name: 'json5-b' }], text: `// PM2 reads this as JavaScript
{
  apps: [
    { name: 'json5-a', script: 'idle.js', instances: 2, exec_mode: 'cluster', /* inline */ },
    { "name": "json5-b", script: "idle.js", env: { 'A_B': 'it\\'s', NUM: 3, }, },
  ],
}
` },
    // 2. lenient values, 6. default exec_mode, 7. log names per process
    { id: 'yaml', file: 'proj/lenient.yml', from: 'proj', form: 'raw', apps: [{ name: 'yaml-a' }, { name: 'yaml-b' }, { name: 'yaml-c' }, { name: 'yaml-d' }], text: `apps:
  - name: yaml-a
    script: idle.js
    instances: 2,
  - name: yaml-b
    script: idle.js
    exec_mode: fork
    instances: 2
  - name: yaml-c
    script: idle.js
  - name: yaml-d
    script: idle.js
    instances: 2
    merge_logs: true
    output: logs/yd.log
` },
    // 4. interpreter in cluster mode; a non-Node interpreter in fork mode
    { id: 'interp', file: 'proj/interp.json', from: 'proj', form: 'json', apps: [
      { name: 'interp-a', script: 'idle.js', interpreter: 'bash', exec_mode: 'cluster', instances: 1 },
      { name: 'interp-b', script: 'job.sh', exec_interpreter: 'bash', args: ['one', 'two'] },
      { name: 'interp-c', script: 'idle.js', interpreter: 'node', interpreter_args: '--max-old-space-size=64' },
    ] },
    // spellings and string forms of every key
    { id: 'keys', file: 'proj/keys.config.js', from: 'proj', form: 'js', apps: [
      { name: 'keys-a', cmd: 'idle.js', out_log: 'logs/ka-out.log', err_log: 'logs/ka-err.log', combine_logs: true, kill_timeout: '3000', max_restarts: '7', min_uptime: '2000', listen_timeout: '4000', restart_delay: '150', instance_var: 'INSTANCE_ID', namespace: 'ns-one' },
      { name: 'keys-b', command: 'idle.js', output: 'logs/kb.out', err: 'logs/kb.err', node_args: ['--no-warnings'], max_memory_restart: '200M', exp_backoff_restart_delay: 100, stop_exit_codes: [0, 3], cron: '0 3 * * *', autorestart: false, watch_delay: 2000 },
      { name: 'keys-c', exec: 'idle.js', err_file: 'logs/kc.err', error: 'logs/kc.err', interpreterArgs: '--no-deprecation', killTimeout: 2500, maxRestarts: 4, logDateFormat: 'YYYY-MM-DD', mergeLogs: true },
    ] },
    // env blocks, port, several apps, watch and the remaining keys
    { id: 'kitchen', file: 'proj/kitchen.config.js', from: 'proj', form: 'js', apps: [
      { name: 'kitchen-a', script: 'idle.js', env: { NODE_ENV: 'production', COUNT: 3, FLAG: false }, port: 3150, watch: ['sub'], ignore_watch: ['node_modules'], time: true, log_type: 'json', cron_restart: 0, wait_ready: false, shutdown_with_message: true, source_map_support: true, disable_source_map_support: false, increment_var: 'PORT', instances: 2, vizion: false, pmx: false, automation: false, treekill: true, pid_file: 'pids/k.pid', watch_options: { usePolling: false }, kill_retry_time: 100, v8: false, event_loop_inspector: false, disable_trace: true },
      { name: 'kitchen-b', script: 'idle.js', watch: true, disable_logs: true, autostart: true },
    ] },
    // 3. a name with `/` (PM2 sanitizes its log names)
    { id: 'slash', file: 'proj/slash.config.js', from: 'proj', form: 'js', apps: [
      { name: 'api.example.com/hawk', script: 'idle.js', instances: 2 },
    ] },
    // 9. node_args with npm: PM2 gives them to the Node that runs npm
    { id: 'npm', file: 'proj/npm.config.js', from: 'proj', form: 'js', apps: [
      { name: 'npm-a', script: 'npm', args: 'start', node_args: '--max-old-space-size=256' },
    ] },
    // one app without a list
    { id: 'single', file: 'proj/single.config.js', from: 'proj', form: 'js', single: true, apps: [
      { name: 'single-a', script: 'idle.js', args: ['--x', '1'] },
    ] },
  ];
}

function writeVariation(box, v) {
  const body = v.single ? v.apps[0] : { apps: v.apps };
  const text = v.text ?? (v.form === 'js' ? `module.exports = ${JSON.stringify(body, null, 2)};\n` : JSON.stringify(body, null, 2));
  return box.write(v.file, text);
}

/** What PM2 resolved for one app, from its processes in `pm2 jlist`, plus /proc. */
function pm2View(procs, { pm2Home, home }) {
  procs.sort((a, b) => a.pm_id - b.pm_id);
  const e = procs[0].pm2_env;
  // PM2 names a process's log after its pm_id (-3.log); superd after its slot (-0.log, -1.log).
  // Default files go to each one's home: PM2_HOME/logs, SUPER_HOME/logs.
  const bySlot = (p, i) => p.replace(new RegExp(`-${procs[i].pm_id}\\.log$`), `-${i}.log`).replace(`${pm2Home}/logs/`, `${home}/logs/`);
  return {
    name: e.name,
    namespace: e.namespace,
    script: e.pm_exec_path,
    args: asList(e.args),
    exec_mode: e.exec_mode.replace(/_mode$/, ''),
    instances: procs.length,
    cwd: e.pm_cwd,
    node_args: asList(e.node_args),
    autorestart: e.autorestart,
    log_files: e.disable_logs ? [] : procs.map((p, i) => ({ out: bySlot(p.pm2_env.pm_out_log_path, i), err: bySlot(p.pm2_env.pm_err_log_path, i) })),
    real: procs.map((p) => p.real).filter(Boolean), // what runs (the driver read /proc)
    env: e.env,
    raw: e,
  };
}

/** A process's environment, from /proc. */
function environ(pid) {
  return Object.fromEntries(fs.readFileSync(`/proc/${pid}/environ`, 'utf8').split('\0').filter(Boolean).map((kv) => [kv.slice(0, kv.indexOf('=')), kv.slice(kv.indexOf('=') + 1)]));
}

/** Field by field: -> ['<field>: pm2 <x>, superd <y>', ...] keyed by field. */
function compare(pm2, sd, written) {
  const diffs = {};
  const same = (field, a, b) => {
    if (JSON.stringify(a) !== JSON.stringify(b)) diffs[field] = `pm2 ${JSON.stringify(a)}, superd ${JSON.stringify(b)}`;
  };
  for (const f of ['name', 'namespace', 'script', 'args', 'exec_mode', 'instances', 'cwd', 'autorestart']) same(f, pm2[f], sd[f]);
  // source_map_support is --enable-source-maps in both (PM2 adds it to node_args as superd does).
  const maps = (args) => args.filter((a) => a !== '--enable-source-maps');
  same('node_args', maps(pm2.node_args), maps(sd.node_args));
  // superd lists shared files once; PM2 each process's.
  const sdLogs = sd.log_files.length === 1 ? Array.from({ length: sd.instances }, () => sd.log_files[0]) : sd.log_files;
  same('log_files', pm2.log_files, sdLogs);
  // The interpreter that runs: PM2's cluster workers are always Node.
  const interp = pm2.exec_mode === 'cluster' ? 'node' : path.basename(pm2.raw.exec_interpreter);
  same('interpreter', interp, path.basename(sd.interpreter));
  // The file's own variables (and PORT from port), as the app sees them; PWD as it runs.
  const declared = Object.keys(written.env ?? {}).concat(written.port ? ['PORT'] : []);
  same('env', Object.fromEntries(declared.map((k) => [k, String(pm2.env[k])])), Object.fromEntries(declared.map((k) => [k, sd.env[k]])));
  // What runs, in fork mode: PM2 spawns the process in its cwd with its env. (A cluster worker
  // is forked in the daemon's directory and moves to its cwd once PM2's container has loaded:
  // read at `online`, it may not have yet; and its PWD is the PM2 daemon's own.)
  if (pm2.exec_mode === 'fork') {
    same('real.cwd', pm2.real.map((r) => r.cwd), pm2.real.map(() => sd.cwd));
    same('real.pwd', pm2.real.map((r) => r.pwd), pm2.real.map(() => sd.env.PWD ?? sd.cwd));
  }
  if (interp !== 'node' && pm2.real.length) same('real.argv', pm2.real[0].argv.slice(1), [sd.script, ...sd.args]);
  // watch: PM2 keeps what the file says (true, or paths relative to cwd); superd resolves them.
  const watch = pm2.raw.watch === true ? [pm2.cwd] : pm2.raw.watch ? asList(pm2.raw.watch).map((p) => path.resolve(pm2.cwd, p)) : [];
  same('watch', watch, sd.watch);
  const r = pm2.raw;
  const num = (v) => (v === undefined || v === null ? null : Number(v));
  same('kill_timeout', num(r.kill_timeout) ?? 1600, sd.kill_timeout);
  same('max_restarts', num(r.max_restarts) ?? 16, sd.max_restarts);
  same('min_uptime', num(r.min_uptime) ?? 1000, sd.min_uptime);
  same('listen_timeout', num(r.listen_timeout) ?? 8000, sd.listen_timeout);
  same('restart_delay', num(r.restart_delay) ?? 0, sd.restart_delay);
  same('exp_backoff_restart_delay', num(r.exp_backoff_restart_delay) ?? 0, sd.exp_backoff_restart_delay);
  same('watch_delay', num(r.watch_delay) ?? 1000, sd.watch_delay);
  same('max_memory_restart', r.max_memory_restart ?? null, sd.max_memory_restart);
  same('cron_restart', r.cron_restart ?? null, sd.cron_restart);
  same('instance_var', r.instance_var, sd.instance_var);
  same('increment_var', r.increment_var ?? null, sd.increment_var);
  same('stop_exit_codes', asList(r.stop_exit_codes).map(Number), sd.stop_exit_codes);
  same('wait_ready', r.wait_ready ?? false, sd.wait_ready);
  same('shutdown_with_message', r.shutdown_with_message ?? false, sd.shutdown_with_message);
  same('disable_logs', r.disable_logs ?? false, sd.disable_logs);
  same('source_map_support', Boolean(r.source_map_support) && !r.disable_source_map_support, sd.source_map_support);
  // PM2's time: true is log_date_format 'YYYY-MM-DDTHH:mm:ss' (Common.verifyConfs); superd's is ISO time.
  same('log_date_format', r.time ? 'time' : r.log_date_format ?? null, sd.time && !sd.log_date_format ? 'time' : sd.log_date_format);
  same('log_type', r.log_type ?? 'raw', sd.log_type);
  return diffs;
}

// The three run side by side: the oracle mostly waits on PM2, the others on their daemons.
describe('PM2 files as PM2 runs them', { concurrency: true }, () => {
  test('PM2 as the oracle: PM2 files resolve in superd as in PM2, key by key', { timeout: 180000 }, async (t) => {
    const { home: pm2Home, env } = privatePm2(t);
    const box = await sandbox(t);
    for (const f of ['proj/idle.js', 'proj/sub/idle.js']) box.write(f, IDLE);
    box.write('proj/job.sh', 'while :; do sleep 1; done\n');
    box.write('proj/package.json', JSON.stringify({ name: 'proj', private: true, scripts: { start: 'node idle.js' } }));
    fs.mkdirSync(path.join(box.dir, 'elsewhere'));
    const vars = variations();

    // Coverage: every PM2 key used by a variation, or named in NOT_COMPARED.
    const used = new Set();
    for (const v of vars) {
      for (const app of v.apps) for (const k of Object.keys(app)) used.add(k);
      if (v.text) for (const m of v.text.matchAll(/^\s*-?\s*"?([a-z_]+)"?:/gim)) used.add(m[1]);
    }
    const uncovered = [...PM2_KEYS, ...Object.keys(PM2_TOP_KEYS)].filter((k) => k !== 'apps' && !NOT_COMPARED[k] && !pm2Names(k).some((n) => used.has(n)));
    assert.deepEqual(uncovered, [], 'PM2 keys no variation exercises: add them to a variation, or to NOT_COMPARED with the reason');

    for (const v of vars) v.path = writeVariation(box, v);
    // The corpus, copied (its JS files name log paths from CORPUS_LOGS), started from its directory.
    const corpusDir = path.join(box.dir, 'corpus');
    fs.cpSync(path.join(FIXTURES, 'pm2'), corpusDir, { recursive: true });
    const corpusEnv = { CORPUS_PORTS: path.join(box.dir, 'ports'), CORPUS_LOGS: path.join(box.dir, 'logs') };
    fs.mkdirSync(corpusEnv.CORPUS_PORTS);
    /** @type {Variation[]} */
    const corpus = fs.readdirSync(corpusDir).filter((f) => CORPUS_ARGS[f] !== undefined).map((f) => ({ id: f, path: path.join(corpusDir, f), from: 'corpus', env: CORPUS_ARGS[f].env }));
    assert.deepEqual(fs.readdirSync(corpusDir).filter((f) => /\.(c?js|mjs|ts|json|ya?ml)$/.test(f) && !CORPUS_ARGS[f] && !['index.js', 'package.json'].includes(f)), [], 'corpus files the oracle does not start');

    // superd's side: what `super check --json` prints (its code, in-process: one CLI start-up per
    // file saved; the CLI itself for the first variation, which must print the same).
    const { loadEcosystem } = await import('../../lib/config/index.js');
    const { checkView } = await import('../../lib/ctl/check-view.js');
    const callerEnv = { ...env, ...corpusEnv };
    const all = [...vars, ...corpus];
    /** @type {any[]} the check view, or {problems} */
    const views = await Promise.all(all.map(async (v) => {
      try {
        return checkView(await loadEcosystem(v.path, { env: v.env, startDir: path.join(box.dir, v.from), callerEnv: { ...callerEnv, PWD: path.join(box.dir, v.from) }, home: box.home }));
      } catch (err) {
        return { problems: err.details?.problems ?? [err.message] };
      }
    }));
    const cli = await box.cli(['check', vars[0].path, '--json'], { cwd: path.join(box.dir, vars[0].from) });
    assert.deepEqual(JSON.parse(cli.stdout), JSON.parse(JSON.stringify(views[0])), cli.stderr);

    // PM2's side: `pm2 start <file>` from its directory, in groups whose app names differ (one
    // daemon; `pm2 delete <name>` between groups for the names a later group reuses), through
    // PM2's API as its CLI calls it: one Node start-up for all. Then `pm2 jlist` of each group.
    const groups = [];
    for (const [i, v] of all.entries()) {
      const names = views[i].apps?.map((a) => a.name) ?? [];
      let g = groups.find((x) => names.every((n) => !x.names.has(n)));
      if (!g) groups.push((g = { names: new Set(), jobs: [] }));
      for (const n of names) g.names.add(n);
      g.jobs.push({ id: v.id, file: v.path, from: path.join(box.dir, v.from), env: v.env });
      v.group = groups.indexOf(g);
    }
    const driver = box.write('pm2-driver.cjs', PM2_DRIVER);
    const listed = path.join(box.dir, 'pm2-list.json');
    const r = await runProcess(process.execPath, [driver, path.join(ROOT, 'node_modules', 'pm2'), JSON.stringify(groups.map((g, i) => ({ jobs: g.jobs, clear: [...g.names].filter((n) => groups.slice(i + 1).some((later) => later.names.has(n))) }))), listed], { cwd: box.dir, env: { ...env, ...corpusEnv }, timeout: 150000 });
    assert.equal(r.code, 0, `pm2 start: ${r.stdout}${r.stderr.slice(-3000)}`);
    const out = JSON.parse(fs.readFileSync(listed, 'utf8'));

    const found = {};
    for (const [i, v] of all.entries()) {
      const { list, errors } = out[v.group];
      const view = views[i];
      if (errors[v.id] || view.problems) {
        if (errors[v.id] && view.problems) continue; // both refuse it
        found[v.id] = errors[v.id] ? `PM2 refuses it (${errors[v.id].split('\n')[0]}), superd runs it` : `superd refuses it: ${view.problems.join('; ')}`;
        continue;
      }
      // A file PM2 takes but runs none of the apps of (what some Node versions make of a
      // TypeScript file's export default) counts as one that PM2 refuses.
      if (!view.apps.some((a) => list.some((p) => p.name === a.name))) {
        found[v.id] = 'PM2 runs none of its apps, superd runs them';
        continue;
      }
      for (const sd of view.apps) {
        const written = v.apps?.find((a) => a.name === sd.name) ?? { env: Object.fromEntries(Object.entries(sd.env).filter(([, x]) => x !== '********')) };
        const procs = list.filter((p) => p.name === sd.name);
        if (!procs.length) {
          found[`${v.id}/${sd.name}`] = 'PM2 runs no such app';
          continue;
        }
        for (const [field, what] of Object.entries(compare(pm2View(procs, { pm2Home, home: box.home }), sd, written))) found[`${v.id}/${sd.name}.${field}`] = what;
      }
      for (const a of v.apps ?? []) if (!view.apps.some((x) => x.name === a.name)) found[`${v.id}/${a.name}`] = 'superd has no such app';
    }
    const unexplained = Object.entries(found).filter(([k]) => !DELIBERATE[k]).map(([k, w]) => `${k}: ${w}`);
    assert.deepEqual(unexplained, [], 'differences from PM2: make them equal, or list them in DELIBERATE and docs/pm2.md');
    assert.deepEqual(Object.keys(DELIBERATE).filter((k) => !found[k]), [], 'deliberate differences that no longer occur');
    const docs = fs.readFileSync(path.join(ROOT, 'docs', 'pm2.md'), 'utf8');
    assert.deepEqual(Object.keys(DELIBERATE).filter((k) => !docs.includes(`\`${k}\``)), [], 'deliberate differences docs/pm2.md does not list');
  });

  test('super start of a PM2 file whose apps never listen returns once they run; a name with / works in every command; PWD is the cwd', { timeout: 60000 }, async (t) => {
    const box = await sandbox(t);
    box.write('proj/idle.js', IDLE);
    box.write('proj/sub/idle.js', IDLE);
    // Readiness by listening would hold `super start` for listen_timeout, then warn that they
    // did not become ready: they are online once they run, with no such warning.
    const file = box.write('proj/config/pm2/apps.config.js', `module.exports = { apps: [
      { name: 'api.example.com/hawk', script: 'idle.js', instances: 2, listen_timeout: 20000 },
      { name: 'consumer', script: 'sub/idle.js', listen_timeout: 20000 },
    ] };\n`);
    const r = await box.cli(['start', file], { cwd: path.join(box.dir, 'proj') });
    assert.equal(r.code, 0, r.stderr);
    assert.doesNotMatch(r.stderr, /did not become ready/);
    const ls = await lsJson(box);
    const byName = Object.fromEntries(ls.apps.map((a) => [a.name, a]));
    assert.deepEqual(Object.keys(byName).sort(), ['api.example.com/hawk', 'consumer']);
    assert.deepEqual(byName['api.example.com/hawk'].workers.map((w) => w.status), ['online', 'online']);
    assert.equal(byName.consumer.workers[0].status, 'online');
    // Relative to where `super start` ran (proj), not the file (proj/config/pm2); PWD is the cwd.
    const consumer = await describeJson(box, 'consumer');
    assert.equal(consumer.config.script, path.join(box.dir, 'proj', 'sub', 'idle.js'));
    assert.equal(environ(byName.consumer.workers[0].pid).PWD, path.join(box.dir, 'proj'));
    // The name with `/`: its log files are PM2's sanitized names, per process; every command takes it.
    const hawk = await describeJson(box, 'api.example.com/hawk');
    assert.deepEqual([path.basename(hawk.logs.out), path.basename(hawk.logs.err)], ['api.example.com-hawk-out-0.log', 'api.example.com-hawk-error-0.log']);
    assert.ok(fs.existsSync(path.join(box.home, 'logs', 'api.example.com-hawk-out-1.log')));
    for (const args of [['describe', 'api.example.com/hawk'], ['logs', 'api.example.com/hawk', '--lines', '1'], ['restart', 'api.example.com/hawk'], ['stop', 'api.example.com/hawk'], ['start', 'api.example.com/hawk'], ['delete', 'api.example.com/hawk']]) {
      const c = await box.cli(args);
      assert.equal(c.code, 0, `${args.join(' ')}: ${c.stderr}`);
    }
    assert.deepEqual((await lsJson(box)).apps.map((a) => a.name), ['consumer']);
  });

  test('a PM2 file\'s cluster app is online once it runs, and its reload still waits for the replacement to listen', { timeout: 60000 }, async (t) => {
    const box = await sandbox(t);
    // Listens once the file `go` exists, then after the delay delay.txt says when it starts
    // (and writes `listened`): the first worker when the test says, so it is online before it
    // listens whatever the load; the replacement 4 s after it starts, well after
    // min_uptime (300 ms), when it would count as online by PM2's readiness.
    box.write('delay.txt', '0');
    box.write('slow.js', `const fs = require('fs');
const delay = Number(fs.readFileSync(__dirname + '/delay.txt', 'utf8'));
const gate = setInterval(() => {
  if (!fs.existsSync(__dirname + '/go')) return;
  clearInterval(gate);
  setTimeout(() => require('http').createServer((q, s) => s.end('ok')).listen(0, () => fs.writeFileSync(__dirname + '/listened', '')), delay);
}, 20);\n`);
    const file = box.write('slow.config.js', "module.exports = { apps: [{ name: 'slow', script: 'slow.js', instances: 1, min_uptime: 300 }] };\n");
    const started = await box.start(file);
    assert.deepEqual([started.started, started.warnings ?? []], [['slow'], []]);
    assert.deepEqual((await lsJson(box)).apps[0].workers.map((w) => w.status), ['online'], 'online, not listening');
    box.write('go', '');
    await eventually(() => fs.existsSync(path.join(box.dir, 'listened')), { timeout: 20000, what: 'the first worker to listen' });
    box.write('delay.txt', '4000');
    const re = await request(box, 'reload', { target: ['slow'] });
    assert.ok(re.apps[0].ok, JSON.stringify(re));
    assert.ok(re.apps[0].ready_ms >= 4000, `the replacement was ready after ${re.apps[0].ready_ms} ms, before it listened`);
  });
});

test('every row of docs/pm2.md "How superd reads a PM2 file" names its test, and the test files it names exist', () => {
  const docs = fs.readFileSync(path.join(ROOT, 'docs', 'pm2.md'), 'utf8');
  const table = docs.slice(docs.indexOf('## How superd reads a PM2 file'), docs.indexOf('## PM2 itself as the oracle'));
  const rows = table.split('\n').filter((l) => l.startsWith('| ') && !l.startsWith('| what the file says') && !l.startsWith('| ---'));
  assert.ok(rows.length >= 40, `${rows.length} rows`);
  for (const row of rows) {
    const cells = row.split(/(?<!\\)\|/).slice(1, -1);
    assert.equal(cells.length, 4, row);
    const named = cells[3].trim();
    assert.match(named, /reading|keys|corpus|oracle|test\//, `no test named: ${row}`);
    for (const [file] of named.matchAll(/test\/[\w/.-]+\.js/g)) assert.ok(fs.existsSync(path.join(ROOT, file)), `${file} (${row.slice(0, 60)})`);
  }
});
