// The corpus test/fixtures/pm2/: ecosystem files written the way PM2 projects write them
// (pm2 init's shapes, several apps, `npm start`, .mjs servers, instances: 'max', deploy
// sections, JS logic, TypeScript, JSON, YAML, and what PM2 reads leniently: one app
// without a list, numbers as strings, two names for a key, no name, a name with spaces),
// each started unchanged by one real daemon with the right number of workers, the apps
// of app/answer.js (and index.js) answering a request, then deleted before the next file.
// `super start` itself runs for the first file (it boots the daemon) and each file with CLI
// flags; the others are started in-process through the same launch and request.
import test from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { sandbox, lsJson, describeJson, httpGet, FIXTURES } from '../helpers/harness.js';
import { request } from '../helpers/requests.js';
import { ALLOWED } from '../helpers/cpus.js';

const dir = path.join(FIXTURES, 'pm2');
const MAX = ALLOWED.length;
const NOT_ECOSYSTEMS = new Set(['package.json', 'index.js']);

/**
 * file -> { args: extra CLI flags, apps: name -> online workers expected (0: registered,
 * stopped), answering: the apps (of app/answer.js or index.js) whose workers must answer a
 * request, warns: warning lines the file must give (besides PM2-only keys), check: more
 * checks on the running apps }
 */
const CORPUS = {
  'ecosystem.config.js': { apps: { app1: 1 } },
  'cluster-max.config.js': { args: ['--env', 'production'], apps: { api: MAX } },
  'npm-start.config.js': { apps: { web: 1 } },
  'multi-app.config.js': { apps: { gateway: 1, 'queue-worker': 1, admin: 1 } },
  'deploy.config.js': { apps: { 'deployed-api': 1, 'deployed-worker': 1 } },
  'esm-server.config.cjs': { apps: { 'esm-api': 1 } },
  'ecosystem.config.mjs': { apps: { 'mjs-app': 1 } },
  'ecosystem.json': { args: ['--env', 'production'], apps: { 'json-api': 1, 'json-worker': 1 } },
  'ecosystem.yml': { apps: { 'yaml-api': 1, 'yaml-worker': 1 } },
  'env-logic.config.js': { apps: { 'env-api': 1 } },
  'ecosystem.config.ts': { apps: { 'ts-api': 1, 'ts-worker': 1 } },
  'increment-var.config.js': { apps: { ports: 2 } },
  'logs.config.js': { apps: { quiet: 1, combined: 1 } },
  'shell-job.config.js': { apps: { 'nightly-sync': 1 } },
  'node-args.config.js': { apps: { tuned: 1 } },
  'full-keys.config.js': { args: ['--env', 'production'], apps: { 'kitchen-sink': Math.max(1, MAX - 1) } },
  'autostart.config.js': { apps: { always: 1, 'on-demand': 0 } },
  'process.json': { apps: { legacy: 1 } },
  'one-app.config.js': { apps: { solo: 1 }, answering: ['solo'] },
  'bare-list.json': { apps: { 'listed-api': 1, 'listed-worker': 1 }, answering: ['listed-api'] },
  'apps-mapping.yml': { apps: { answer: 1 }, answering: ['answer'], warns: [/apps-mapping\.yml:2:1: apps: no name: named "answer" after its script/] },
  'string-numbers.json': {
    apps: { strings: 2 },
    answering: ['strings'],
    warns: [/string-numbers\.json:17:7: apps\[0\]\.cron_restart: 0 turns cron restarts off/],
    check: async (box) => {
      const app = await describeJson(box, 'strings');
      assert.deepEqual([app.config.max_restarts, app.config.kill_timeout, app.config.max_memory_restart], [10, 5000, 512 * 1024 * 1024]);
      assert.deepEqual([app.config.env.PORT, app.config.env.WORKERS, app.config.env.DEBUG, app.config.env.FEATURES], ['3000', '4', 'false', '{"search":true}']);
      assert.equal(app.logs.err, '/dev/null', 'error_file: NULL');
    },
  },
  'two-spellings.config.js': {
    apps: { spelled: 1 },
    answering: ['spelled'],
    warns: [/apps\[0\]\.output: ignored: out_file is given too, with another value, and PM2 uses out_file/],
    check: async (box, env) => {
      const app = await describeJson(box, 'spelled');
      assert.deepEqual([app.config.out_file, app.config.error_file], [`${env.CORPUS_LOGS}/spelled-out.log`, `${env.CORPUS_LOGS}/spelled-err.log`]);
      assert.deepEqual([app.config.node_args, app.config.max_memory_restart, app.config.log_date_format], [['--max-old-space-size=256'], 300 * 1024 * 1024, 'YYYY-MM-DD HH:mm:ss']);
    },
  },
  'unnamed.config.js': { apps: { answer: 1, worker: 1 }, answering: ['answer'], warns: [/apps\[0\]: no name: named "answer"/, /apps\[1\]\.name: name is "undefined" .*named "worker"/] },
  'spaced-name.config.js': { apps: { 'Billing API Server': 1 }, answering: ['Billing API Server'], check: spacedName },
  'pm2-init.config.js': { apps: { index: 1 }, answering: ['index'], warns: [/apps\[0\]: no name: named "index"/] },
  'pm2-init-es.config.mjs': { apps: { index: 1 }, answering: ['index'], warns: [/apps\[0\]: no name: named "index"/] },
};

/** `super describe <name> --json`, the CLI's own. */
async function describeCli(box, name) {
  const r = await box.cli(['describe', name, '--json']);
  assert.equal(r.code, 0, r.stderr);
  return JSON.parse(r.stdout);
}

/**
 * Starts `file` as `super start` does: through the CLI itself where `viaCli`, else in-process
 * (box.start, which rejects when an app fails). Resolves with the warning lines it gave.
 */
async function startFile(box, file, { args, env, viaCli }) {
  if (!viaCli) return (await box.start(path.join(dir, file), { env })).warnings ?? [];
  const r = await box.cli(['start', file, ...args], { cwd: dir, env });
  assert.equal(r.code, 0, `${file}: exit ${r.code}\n${r.stderr}`);
  return r.stderr.split('\n').filter(Boolean);
}

/** Every command takes the name with spaces (and its namespace), and the log file is its own. */
async function spacedName(box) {
  const name = 'Billing API Server';
  const ok = async (args, what = args.join(' ')) => {
    const r = await box.cli(args);
    assert.equal(r.code, 0, `${what}: ${r.stderr}`);
    return r;
  };
  assert.match((await ok(['ls'])).stdout, /\n\d+ +Billing API Server +0 /);
  assert.equal(path.basename((await describeCli(box, name)).logs.out), 'Billing-API-Server-out-0.log');
  await ok(['logs', name, '--lines', '5']);
  for (const verb of ['reload', 'restart', 'stop']) await ok([verb, name]);
  assert.match((await ok(['start', name])).stdout, /^started Billing API Server$/m);
  // A hint names the app as a shell reads it back.
  assert.match((await ok(['start', name])).stdout, /use `super reload 'Billing API Server'` to reload it/);
  await ok(['restart', 'Billing Team'], 'restart by namespace');
  await ok(['delete', name]);
  assert.deepEqual((await lsJson(box)).apps, [], 'deleted by name');
}

/** Each online worker of the apps named (of app/answer.js or index.js) answers on the port it wrote. */
async function answers(ls, names, portsDir) {
  for (const app of ls.apps.filter((a) => names.includes(a.name))) {
    for (const w of app.workers.filter((x) => x.status === 'online')) {
      const file = path.join(portsDir, `${app.name}.${w.pid}`);
      assert.ok(fs.existsSync(file), `${app.name} worker ${w.pid} wrote no port`);
      // Cluster workers share the port: any of the app's workers may answer.
      const r = await httpGet(Number(fs.readFileSync(file, 'utf8')));
      const pid = r.body.startsWith(`${app.name} `) && Number(r.body.slice(app.name.length + 1));
      assert.ok(app.workers.some((x) => x.pid === pid), `${app.name}: answered ${JSON.stringify(r.body)}`);
    }
  }
}

test('every corpus file starts unchanged with the right number of workers', async (t) => {
  const files = fs.readdirSync(dir).filter((f) => !NOT_ECOSYSTEMS.has(f) && fs.statSync(path.join(dir, f)).isFile()).sort();
  assert.ok(files.length >= 15, `corpus has ${files.length} files`);
  assert.deepEqual(files, Object.keys(CORPUS).sort(), 'every corpus file has its expectation');
  const box = await sandbox(t);
  // The first command boots the daemon with these: its workers write their ports there.
  const env = { CORPUS_PORTS: path.join(box.dir, 'ports'), CORPUS_LOGS: path.join(box.dir, 'logs') };
  fs.mkdirSync(env.CORPUS_PORTS);
  const viaCli = [];
  for (const file of files) {
    const { args = [], apps, answering = [], warns = [], check } = CORPUS[file];
    const cli = viaCli.length === 0 || args.length > 0;
    if (cli) viaCli.push(file);
    const lines = await startFile(box, file, { args, env, viaCli: cli });
    const ls = await lsJson(box);
    const seen = Object.fromEntries(ls.apps.map((a) => [a.name, a.workers.filter((w) => w.status === 'online').length]));
    assert.deepEqual(seen, apps, `${file}: online workers per app\n${lines.join('\n')}`);
    // No app fails to become ready (a warning would say so): only PM2-only keys and the file's own notes warn.
    for (const line of lines) assert.ok([/PM2-only key|autostart: false/, ...warns].some((w) => w.test(line)), `${file}: ${line}`);
    for (const w of warns) assert.ok(lines.some((line) => w.test(line)), `${file}: no warning ${w}\n${lines.join('\n')}`);
    await answers(ls, answering, env.CORPUS_PORTS);
    await check?.(box, env);
    // Cleared for the next file over the control socket: a CLI start-up per file saved.
    await request(box, 'delete', { target: 'all' });
  }
  t.diagnostic(`started by the CLI: ${viaCli.join(', ')}`);
});
