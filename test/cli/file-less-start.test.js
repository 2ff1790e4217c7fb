// PM2's `start` forms on one real daemon: a script with -i/--name/--env-var/-- args, a
// command line ("node server.cjs"), a command on PATH with its arguments after --, a
// script alone in fork mode with PM2's start flags, `start <name|id>` for stopped apps,
// refusals that touch nothing, and save/resurrect of a file-less app with its arguments.
import test from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { sandbox, freePort, httpGet, lsJson, describeJson } from '../helpers/harness.js';
import { request } from '../helpers/requests.js';

// Answers with what it was started with: its slot, argv after the script, and its cwd.
const SERVER = `const http = require('node:http');
http.createServer((req, res) => res.end(JSON.stringify({ slot: process.env.NODE_APP_INSTANCE, args: process.argv.slice(2), cwd: process.cwd() })))
  .listen(Number(process.env.PORT), '127.0.0.1');
`;

const ask = async (port) => JSON.parse((await httpGet(port)).body);
const appOf = (ls, name) => ls.apps.find((a) => a.name === name);

test('file-less start, PM2 forms', async (t) => {
  const box = await sandbox(t);
  box.write('server.cjs', SERVER);
  const cli = (args, opts = {}) => box.cli(args, { cwd: box.dir, ...opts });
  const [p1, p2, p3, p4] = [await freePort(), await freePort(), await freePort(), await freePort()];

  await t.test('a script: -i, --name, --env-var, arguments after --', async () => {
    const r = await cli(['start', 'server.cjs', '-i', '2', '--name', 'api', '--env-var', `PORT=${p1}`, '--env-var', 'API_TOKEN=s3cret', '--', '--flag', 'two words']);
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stdout, /started api/);
    const api = appOf(await lsJson(box), 'api');
    assert.deepEqual(api.workers.map((w) => w.status), ['online', 'online']);
    const answer = await ask(p1);
    assert.deepEqual(answer.args, ['--flag', 'two words']);
    assert.equal(answer.cwd, box.dir);
    // What `super describe api --json` prints, asked in-process.
    const d = await describeJson(box, 'api');
    assert.doesNotMatch(JSON.stringify(d), /s3cret/, 'describe masks secrets, in the command line too');
    assert.equal(d.exec_mode, 'cluster');
    assert.equal(d.config.env.API_TOKEN, '********', 'describe masks secrets');
    assert.deepEqual(d.source.command, { script: 'server.cjs', args: ['--flag', 'two words'], name: 'api', instances: '2', env: { PORT: String(p1), API_TOKEN: '********' }, cwd: box.dir });
    const text = (await cli(['show', 'api'])).stdout;
    assert.match(text, /started as: super start server\.cjs --name api -i 2 -- --flag 'two words'/);
  });

  await t.test('a command line in one argument', async () => {
    const r = await cli(['start', 'node server.cjs --mode cmd', '--name', 'cmd', '--env-var', `PORT=${p2}`]);
    assert.equal(r.code, 0, r.stderr);
    assert.equal(appOf(await lsJson(box), 'cmd').workers[0].status, 'online');
    const d = await describeJson(box, 'cmd');
    assert.equal(d.exec_mode, 'fork', 'a command that is not a Node script runs in fork mode');
    assert.deepEqual((await ask(p2)).args, ['--mode', 'cmd']);
  });

  await t.test('a command on PATH with its arguments after -- (npm start)', async () => {
    box.write('package.json', JSON.stringify({ name: 'web', private: true, scripts: { start: 'node server.cjs --from-npm' } }));
    const r = await cli(['start', 'npm', '--name', 'web', '--', 'start'], { env: { PORT: String(p3) } });
    assert.equal(r.code, 0, r.stderr);
    const d = await describeJson(box, 'web');
    assert.deepEqual(d.config.args, ['start']);
    for (let i = 0; i < 100; i++) {
      const answer = await ask(p3).catch(() => null); // npm takes a while to start node
      if (answer) {
        assert.deepEqual(answer.args, ['--from-npm']);
        return;
      }
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    assert.fail('npm start never answered');
  });

  await t.test('a script alone runs as pm2 start app.js: fork mode, ready once it runs; PM2 flags set their keys', async (tt) => {
    // The later subtests list the apps; one at a time, as a name that is not there refuses the whole list.
    tt.after(async () => {
      await request(box, 'delete', { target: ['q', 'cl'] });
    });
    box.fixture('idle.js'); // a queue consumer: never listens
    const r = await cli(['start', 'idle.js', '--name', 'q', '--max-memory-restart', '200M', '--no-autorestart', '-c', '0 3 * * *',
      '-k', '3000', '--restart-delay', '500', '--time', '--namespace', 'jobs', '-o', 'q.out', '--no-vizion']);
    assert.equal(r.code, 0, r.stderr);
    assert.equal(r.stderr, 'super: warning: --no-vizion: ignored (PM2\'s versioning metadata)\n', 'no listen_timeout warning');
    const d = await describeJson(box, 'q');
    assert.deepEqual([d.exec_mode, d.config.ready_on], ['fork', 'spawn']);
    const c = d.config;
    assert.deepEqual([c.max_memory_restart, c.autorestart, c.cron_restart, c.kill_timeout, c.restart_delay, c.time, c.namespace, c.out_file],
      [200 * 1024 * 1024, false, '0 3 * * *', 3000, 500, true, 'jobs', path.join(box.dir, 'q.out')]);
    assert.match((await cli(['show', 'q'])).stdout, /started as: super start idle\.js --name q --max-memory-restart 200M --no-autorestart --cron '0 3 \* \* \*' --output q\.out --time --kill-timeout 3000 --restart-delay 500 --namespace jobs \(in /);
    const cl = await cli(['start', 'server.cjs', '--name', 'cl', '--cluster', '--env-var', `PORT=${p4}`]);
    assert.equal(cl.code, 0, cl.stderr);
    assert.equal((await describeJson(box, 'cl')).exec_mode, 'cluster', '--cluster asks for more');
    assert.equal((await ask(p4)).slot, '0');
  });

  await t.test('bad input: one line with a code, exit 2, nothing started', async () => {
    const before = (await lsJson(box)).apps.map((a) => a.name);
    /** @type {[string[], RegExp][]} */
    const cases = [
      [['start', 'server.cjs', '-i', 'lots'], /^super: E_USAGE: -i lots: give a number of workers/],
      [['start', 'server.cjs', '-i', '5000'], /^super: E_USAGE: -i 5000/],
      [['start', 'missing.js', '--name', 'missing'], /^super: E_CONFIG: cannot start missing\.js: script: file not found: .*missing\.js/],
      [['start', 'no-such-command-here'], /^super: E_CONFIG: cannot start no-such-command-here: script: not found in cwd .* nor on PATH/],
      [['start', 'server.cjs', '--env-var', 'BAD NAME=1'], /^super: E_USAGE: --env-var BAD NAME=1: give NAME=value/],
      [['start', 'server.cjs', '--name', '/bad'], /^super: E_CONFIG: cannot start server\.cjs: --name: name: /],
      [['start', 'server.cjs', '--env', 'prod'], /^super: E_USAGE: --env and --only choose in an ecosystem file/],
      [['start', '"node server.cjs', '--name', 'x'], /^super: E_USAGE: .*unterminated/],
      [['start', 'server.cjs', '--attach'], /^super: E_USAGE: --attach: superd does not attach to logs on start; run super logs <app> -f\n/],
      [['start', 'eco.yml', '--max-memory-restart', '200M'], /^super: E_USAGE: --max-memory-restart goes with a script/],
      [['start', 'server.cjs', '--name', 'mm', '--max-memory-restart', 'lots'], /^super: E_CONFIG: cannot start server\.cjs: max_memory_restart: must be a size/],
    ];
    for (const [args, re] of cases) {
      const r = await cli(args);
      assert.equal(r.code, 2, `${args.join(' ')}: ${r.stderr}`);
      assert.match(r.stderr, re, args.join(' '));
      assert.equal(r.stderr.trim().split('\n').length, 1, `one line: ${r.stderr}`);
    }
    assert.deepEqual((await lsJson(box)).apps.map((a) => a.name), before);
  });

  await t.test('start <name> and start <id> start stopped apps again', async () => {
    await request(box, 'stop', { target: ['api', 'cmd'] });
    let ls = await lsJson(box);
    assert.equal(appOf(ls, 'api').status, 'stopped');
    assert.equal(appOf(ls, 'cmd').status, 'stopped');
    let r = await cli(['start', 'api']);
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stdout, /started api/);
    r = await cli(['start', String(appOf(ls, 'cmd').id), 'web']);
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stdout, /started cmd/);
    assert.match(r.stdout, /web is already running/);
    ls = await lsJson(box);
    assert.equal(appOf(ls, 'api').status, 'online');
    assert.deepEqual((await ask(p1)).args, ['--flag', 'two words'], 'restarted with its arguments');
    r = await cli(['start', '--json', 'api']);
    assert.deepEqual(JSON.parse(r.stdout).running, ['api']);
  });

  await t.test('save and resurrect bring a file-less app back with its arguments', async () => {
    await request(box, 'stop', { target: ['web'] });
    await request(box, 'save');
    assert.equal((await cli(['kill'])).code, 0);
    const r = await cli(['resurrect']);
    assert.equal(r.code, 0, r.stderr);
    const ls = await lsJson(box);
    assert.deepEqual(ls.apps.map((a) => a.name), ['api', 'cmd']);
    assert.deepEqual((await ask(p1)).args, ['--flag', 'two words']);
    assert.deepEqual((await ask(p2)).args, ['--mode', 'cmd']);
    const d = await describeJson(box, 'api');
    assert.equal(d.source.command.name, 'api');
    assert.ok(fs.existsSync(path.join(box.home, 'dump.json')));
  });
});
