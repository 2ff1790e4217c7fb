// PM2's deploy-script commands, what PM2 cannot be compared on (test/pm2/start-or-oracle.test.js
// compares what runs after each): `--json` (`apps` as `reload --json` gives it), a reload
// that restarts nothing, the env a later plain reload keeps, `restart <file>`'s output, and
// the refusals (--env without a file, --env with --keep-config, a name given to
// startOrReload, an unknown env), which change nothing.
import test from 'node:test';
import assert from 'node:assert/strict';
import { sandbox, freePort, lsJson } from '../helpers/harness.js';
import { request } from '../helpers/requests.js';

const appOf = (ls, name) => ls.apps.find((a) => a.name === name);
const pidsOf = (ls, name) => appOf(ls, name).workers.map((w) => w.pid);

test('startOrReload, startOrRestart and reload|restart <file> as PM2 runs them', async (t) => {
  const box = await sandbox(t);
  const [portA, portB] = [await freePort(), await freePort()];
  box.write('app.js', 'require(\'node:http\').createServer((q, s) => s.end(process.env.STAGE)).listen(Number(process.env.PORT), \'127.0.0.1\');\n');
  const file = box.write('ecosystem.config.js', `module.exports = { apps: [
  { name: 'api', script: 'app.js', instances: 2, exec_mode: 'cluster', env: { PORT: ${portA}, STAGE: 'dev' }, env_production: { STAGE: 'prod' } },
  { name: 'jobs', script: 'app.js', env: { PORT: ${portB}, STAGE: 'dev' }, env_production: { STAGE: 'prod' } },
] };\n`);
  // A PM2 file's relative paths start where the command runs, as with PM2 (a deploy's cd).
  const cli = (args) => box.cli(args, { cwd: box.dir });
  /** The STAGE a worker of `app` runs with, asked in-process (the CLI's env is not under test here). */
  const stage = async (app) => (await request(box, 'env', { app })).env.STAGE;

  await t.test('startOrReload --env --json on a first deploy: the daemon starts, and so do the apps', async () => {
    const r = await cli(['startOrReload', file, '--env', 'production', '--json']);
    assert.equal(r.code, 0, r.stdout + r.stderr);
    const out = JSON.parse(r.stdout);
    assert.deepEqual([out.started.sort(), out.running, out.apps], [['api', 'jobs'], [], []]);
    assert.deepEqual((await lsJson(box)).apps.map((a) => [a.name, a.status]), [['api', 'online'], ['jobs', 'online']]);
    assert.equal(await stage('api'), 'prod');
  });

  await t.test('again: every app reloaded, not restarted, `apps` as reload --json gives it; a later plain reload keeps --env', async () => {
    const before = await lsJson(box);
    const r = await cli(['startOrGracefulReload', file, '--env', 'production', '--json']);
    assert.equal(r.code, 0, r.stdout + r.stderr);
    const out = JSON.parse(r.stdout);
    assert.deepEqual(out.started, []);
    assert.deepEqual(out.apps.map((a) => [a.app, a.ok, a.replaced.length]), [['api', true, 2], ['jobs', true, 1]]);
    const after = await lsJson(box);
    for (const name of ['api', 'jobs']) {
      assert.ok(pidsOf(after, name).every((pid) => !pidsOf(before, name).includes(pid)), `${name}'s workers were replaced`);
      assert.ok(appOf(after, name).workers.every((w) => w.restarts === 0), 'a reload, not a restart');
    }
    const again = await cli(['reload', 'api']);
    assert.equal(again.code, 0, again.stderr);
    assert.equal(await stage('api'), 'prod', 'the app re-reads the file with the env it was last given');
  });

  await t.test('restart <file>: restarted, said so, with the file\'s base env', async () => {
    const r = await cli(['restart', file]);
    assert.equal(r.code, 0, r.stdout + r.stderr);
    assert.match(r.stdout, /^restarted api, jobs$/m);
    assert.ok(appOf(await lsJson(box), 'api').workers.every((w) => w.restarts === 1 && w.status === 'online'));
    assert.equal(await stage('api'), 'dev');
  });

  await t.test('refused, nothing touched: --env without a file, --env with --keep-config, a name for startOrReload, an unknown env', async () => {
    const pids = (await lsJson(box)).apps.flatMap((a) => a.workers.map((w) => w.pid));
    const cases = /** @type {[string[], RegExp][]} */ ([
      [['reload', 'api', '--env', 'production'], /^super: E_USAGE: --env and --only choose in an ecosystem file/],
      [['restart', 'all', '--only', 'api'], /^super: E_USAGE: --env and --only choose in an ecosystem file/],
      [['reload', file, '--env', 'production', '--keep-config'], /^super: E_USAGE: --keep-config and --update-env act on the running apps/],
      [['startOrReload', 'api'], /^super: E_USAGE: "api" is not an ecosystem file/],
      [['startOrRestart', file, '--env', 'nope'], /^super: E_CONFIG: .*\n.*--env nope: no app has env_nope/],
    ]);
    for (const [args, re] of cases) {
      const r = await cli(args);
      assert.equal(r.code, 2, `${args.join(' ')}: ${r.stdout}${r.stderr}`);
      assert.match(r.stderr, re);
    }
    assert.deepEqual((await lsJson(box)).apps.flatMap((a) => a.workers.map((w) => w.pid)), pids);
  });
});
