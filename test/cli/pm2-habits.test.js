// PM2's CLI habits on one real daemon: -v without a daemon, list/jlist/prettylist/show,
// numeric ids, several targets, `all`, an ecosystem file as a target, signal (sendSignal),
// reset, pid, logs --nostream, restart --update-env, --json on start/reload/stop/scale, and
// output to a closed pipe.
import test from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { spawn } from 'node:child_process';
import { sandbox, freePort, lsJson, SUPER, ROOT } from '../helpers/harness.js';
import { request } from '../helpers/requests.js';

const pkg = JSON.parse(fs.readFileSync(path.join(ROOT, 'package.json'), 'utf8'));
const appOf = (ls, name) => ls.apps.find((a) => a.name === name);

/** Runs the CLI with its stdout closed from the start: its first write meets EPIPE. */
function closedPipe(home, args) {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [SUPER, ...args], { env: { ...process.env, SUPER_HOME: home, NO_COLOR: '1' }, stdio: ['ignore', 'pipe', 'pipe'] });
    let stderr = '';
    child.stderr.on('data', (d) => (stderr += d));
    child.stdout.destroy();
    const timer = setTimeout(() => child.kill('SIGKILL'), 20000);
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      resolve({ code, signal, stderr });
    });
  });
}

test('PM2 CLI habits', async (t) => {
  const box = await sandbox(t);

  await t.test('-v and --version print the version without a daemon', async () => {
    for (const flag of ['-v', '--version']) {
      const r = await box.cli([flag]);
      assert.equal(r.code, 0, r.stderr);
      assert.equal(r.stdout, `${pkg.version}\n`);
    }
    assert.equal(box.daemonPid(), null, 'no daemon was started');
  });

  box.fixture('http-server.cjs');
  box.fixture('idle.js');
  const [p1, p2] = [await freePort(), await freePort()];
  const ecoA = box.write('a.yml', `apps:
  - name: api
    script: http-server.cjs
    instances: 2
    env: { PORT: ${p1} }
  - name: jobs
    script: idle.js
    exec_mode: fork
`);
  const ecoB = box.write('b.yml', `apps:
  - name: web
    script: http-server.cjs
    env: { PORT: ${p2} }
`);
  const started = await box.cli(['start', ecoA, '--json']);
  assert.equal(started.code, 0, started.stderr);
  assert.deepEqual(JSON.parse(started.stdout).started.sort(), ['api', 'jobs']);
  await box.start(ecoB); // setup, in-process: the CLI's start is checked just above

  await t.test('ids in ls, list, jlist, prettylist; show is describe', async () => {
    const ls = await lsJson(box);
    assert.deepEqual(ls.apps.map((a) => [a.id, a.name]), [[0, 'api'], [1, 'jobs'], [2, 'web']]);
    const table = (await box.cli(['list'])).stdout.split('\n');
    assert.match(table[0], /^id\s+app\s+slot/);
    assert.match(table.find((l) => / web /.test(l)), /^2\s+web\s/);
    const jlist = JSON.parse((await box.cli(['jlist'])).stdout);
    assert.deepEqual(jlist.apps.map((a) => [a.id, a.name, a.workers.length]), ls.apps.map((a) => [a.id, a.name, a.workers.length]));
    const pretty = (await box.cli(['prettylist'])).stdout;
    assert.match(pretty, /^\{\n {2}"apps": \[/);
    assert.deepEqual(JSON.parse(pretty).apps.map((a) => a.id), [0, 1, 2]);
    const show = JSON.parse((await box.cli(['show', '2', '--json'])).stdout);
    assert.equal(show.name, 'web');
    assert.equal(show.id, 2);
  });

  await t.test('numeric ids, several targets and all', async () => {
    let r = await box.cli(['stop', '1', '--json']);
    assert.equal(r.code, 0, r.stderr);
    assert.deepEqual(JSON.parse(r.stdout), { apps: ['jobs'] });
    r = await box.cli(['restart', 'api', 'jobs']);
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stdout, /restarted api, jobs/);
    const ls = await lsJson(box);
    assert.deepEqual(ls.apps.map((a) => a.status), ['online', 'online', 'online']);
    assert.ok(appOf(ls, 'api').workers.every((w) => w.restarts === 1));
    assert.equal(appOf(ls, 'web').workers[0].restarts, 0, 'an app not named is not touched');
    // one unknown target refuses the whole command
    const pids = ls.apps.flatMap((a) => a.workers.map((w) => w.pid));
    r = await box.cli(['stop', 'api', 'nope']);
    assert.equal(r.code, 2);
    assert.match(r.stderr, /^super: E_APP_NOT_FOUND: no app named "nope"/);
    r = await box.cli(['stop', '7']);
    assert.equal(r.code, 2);
    assert.match(r.stderr, /no app with id 7/);
    assert.deepEqual((await lsJson(box)).apps.flatMap((a) => a.workers.map((w) => w.pid)), pids, 'refusals changed nothing');
  });

  await t.test('an ecosystem file as a target: its apps only', async () => {
    const before = appOf(await lsJson(box), 'web').workers[0].pid;
    let r = await box.cli(['reload', ecoA, '--json']);
    assert.equal(r.code, 0, r.stderr);
    assert.deepEqual(JSON.parse(r.stdout).apps.map((a) => [a.app, a.ok]), [['api', true], ['jobs', true]]);
    r = await box.cli(['stop', path.relative(process.cwd(), ecoA)]);
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stdout, /stopped api, jobs/);
    const ls = await lsJson(box);
    assert.equal(appOf(ls, 'web').workers[0].pid, before);
    assert.equal(appOf(ls, 'web').status, 'online');
    r = await box.cli(['start', 'all']);
    assert.equal(r.code, 0, r.stderr);
    assert.deepEqual((await lsJson(box)).apps.map((a) => a.status), ['online', 'online', 'online']);
  });

  await t.test('signal one worker or an app (sendSignal), then reset the counters', async () => {
    const api = appOf(await lsJson(box), 'api');
    const [w0, w1] = api.workers;
    let r = await box.cli(['signal', 'SIGKILL', 'api#1']);
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stdout, new RegExp(`sent SIGKILL to api#1 \\(pid ${w1.pid}\\)`));
    let now = api;
    for (let i = 0; i < 200 && !(now.workers[1].pid && now.workers[1].pid !== w1.pid && now.workers[1].status === 'online'); i++) {
      await new Promise((resolve) => setTimeout(resolve, 50));
      now = appOf(await lsJson(box), 'api');
    }
    assert.notEqual(now.workers[1].pid, w1.pid, 'slot 1 was killed and replaced');
    assert.equal(now.workers[0].pid, w0.pid, 'slot 0 untouched');
    assert.equal(now.workers[1].restarts, w1.restarts + 1);
    r = await box.cli(['sendSignal', 'usr2', 'jobs', '--json']);
    assert.equal(r.code, 0, r.stderr);
    assert.equal(JSON.parse(r.stdout).signal, 'SIGUSR2');
    r = await box.cli(['signal', 'SIGNOPE', 'api']);
    assert.equal(r.code, 2);
    assert.match(r.stderr, /E_USAGE: unknown signal "SIGNOPE"/);
    r = await box.cli(['signal', 'SIGKILL', 'api#9']);
    assert.equal(r.code, 2);
    assert.match(r.stderr, /E_USAGE: api has no slot 9/);
    r = await box.cli(['reset', 'api']);
    assert.equal(r.code, 0, r.stderr);
    assert.ok(appOf(await lsJson(box), 'api').workers.every((w) => w.restarts === 0));
  });

  await t.test('pid (running workers only), logs --nostream, restart --update-env', async () => {
    // The CLI where its output is what is checked; setup and checks in-process.
    const ask = (op, args) => request(box, op, args);
    const ls = await lsJson(box);
    let r = await box.cli(['pid']);
    assert.equal(r.code, 0, r.stderr);
    assert.deepEqual(r.stdout.trim().split('\n').map(Number), ls.apps.flatMap((a) => a.workers.map((w) => w.pid)));
    r = await box.cli(['pid', 'api#1']);
    assert.equal(r.stdout, `${appOf(ls, 'api').workers[1].pid}\n`);
    r = await box.cli(['pid', 'nope']);
    assert.equal(r.code, 2);
    assert.match(r.stderr, /E_APP_NOT_FOUND: no app named "nope"/);
    await ask('stop', { target: 'jobs' });
    assert.deepEqual((await ask('pid', { target: ['jobs'] })).workers, [], 'a stopped worker has no pid (PM2 prints 0, and kill 0 signals the whole group)');
    await ask('start-apps', { target: ['jobs'] });

    r = await box.cli(['logs', 'api', '--nostream', '--lines', '1']);
    assert.equal(r.code, 0, r.stderr);
    r = await box.cli(['logs', '--nostream', '-f']);
    assert.equal(r.code, 2);
    assert.match(r.stderr, /E_USAGE: --nostream prints and exits, -f follows/);

    r = await box.cli(['restart', 'web', '--update-env'], { env: { HABITS_DEPLOY: 'v2' } });
    assert.equal(r.code, 0, r.stderr);
    const envOf = async () => (await ask('env', { app: 'web' })).env.HABITS_DEPLOY;
    assert.equal(await envOf(), 'v2');
    await ask('restart', { target: ['web'] });
    assert.equal(await envOf(), 'v2', 'kept by later restarts, as PM2 keeps it');
  });

  await t.test('--json on scale', async () => {
    const r = await box.cli(['scale', 'web', '2', '--json']);
    assert.equal(r.code, 0, r.stderr);
    assert.deepEqual(JSON.parse(r.stdout), { app: 'web', from: 1, to: 2, warnings: [], failed: [], holds: 'the count holds across reloads and restarts until `instances` changes in its file' });
  });

  await t.test('output to a closed pipe ends quietly', async () => {
    const big = box.write('big.yml', `apps:\n  - name: chatty\n    script: http-server.cjs\n    env: { PORT: ${await freePort()} }\n`);
    await box.start(big);
    fs.appendFileSync(path.join(box.home, 'logs', 'chatty-out.log'), 'a line of output\n'.repeat(20000));
    for (const args of [['ls'], ['logs', 'chatty', '--lines', '20000'], ['logs', 'chatty', '--lines', '20000', '-f'], ['prettylist']]) {
      const r = await closedPipe(box.home, args);
      assert.equal(r.code, 0, `${args.join(' ')}: ${r.signal ?? ''} ${r.stderr}`);
      assert.doesNotMatch(r.stderr, /EPIPE|Error/, args.join(' '));
    }
  });
});
