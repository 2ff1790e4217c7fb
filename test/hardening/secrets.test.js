// Secret environment values and URL passwords appear in no output of superd: describe
// (text and --json), ls, start and reload output (a changed secret shows as a changed
// key, never its value), refused-config errors, control replies and events, the
// Prometheus endpoint, daemon.log and daemon.err. The saved dump keeps the real values
// (resurrect needs them) and is readable by its owner only.
import test from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { sandbox, freePort, httpGet } from '../helpers/harness.js';

const SECRETS = {
  DB_PASSWORD: 'dbpw-7Hq2',
  API_TOKEN: 'tok-9Zx1',
  SECRET_KEY: 'sk-4Lm8',
  AWS_SECRET_ACCESS_KEY: 'awssak-2Pv6',
  STRIPE_KEY: 'stripe-5Nc3',
};
const URL_PASSWORD = 'urlpw-8Rt4';
const ARG_PASSWORD = 'argpw-3Ke7';
const SHELL_TOKEN = 'shelltok-6Wd5';
const NEW_PASSWORD = 'dbpw-new-1Yb9';
const BAD_PASSWORD = 'dbpw-bad-0Fj2';

function ecosystem(port, mport, dbPassword) {
  const env = { ...SECRETS, DB_PASSWORD: dbPassword, DATABASE_URL: `postgres://app:${URL_PASSWORD}@db.local:5432/app`, PORT: String(port) };
  return `metrics:\n  listen: 127.0.0.1:${mport}\napps:\n  - name: web\n    script: http-server.js\n    instances: 2\n` +
    `    args: [--db, "postgres://app:${ARG_PASSWORD}@db.local/app"]\n    env:\n${Object.entries(env).map(([k, v]) => `      ${k}: ${JSON.stringify(v)}\n`).join('')}`;
}

test('secret values appear in no output', async (t) => {
  const box = await sandbox(t);
  const port = await freePort();
  const mport = await freePort();
  box.fixture('http-server.js');
  const eco = box.write('eco.yml', ecosystem(port, mport, SECRETS.DB_PASSWORD));
  const outputs = []; // [what, text]
  const run = async (args, opts) => {
    const r = await box.cli(args, opts);
    outputs.push([`super ${args.join(' ')}`, r.stdout + r.stderr]);
    return r;
  };

  assert.equal((await run(['start', eco], { env: { MY_SHELL_TOKEN: SHELL_TOKEN } })).code, 0);
  assert.match((await httpGet(port)).body, /app=web/);

  // describe shows which variables exist, masked
  const described = await run(['describe', 'web', '--json']);
  const config = JSON.parse(described.stdout).config;
  for (const k of Object.keys(SECRETS)) assert.equal(config.env[k], '********', k);
  assert.equal(config.env.DATABASE_URL, 'postgres://app:********@db.local:5432/app');
  assert.equal(config.env.PORT, String(port), 'a plain value is shown');
  assert.deepEqual(config.args, ['--db', 'postgres://app:********@db.local/app']);
  assert.match((await run(['describe', 'web'])).stdout, /\benv: .*\bDB_PASSWORD=\*{8}( |$)/m);
  await run(['ls']);
  await run(['ls', '--json']);
  await run(['logs', 'web', '--lines', '50']);

  // the control channel: replies and events
  const client = await box.client();
  t.after(() => client.close());
  const frames = [];
  client.onEvent((e) => frames.push(e));
  await client.request('subscribe', { topics: ['worker', 'reload', 'metrics', 'watch'] });
  frames.push(await client.request('describe', { app: 'web' }), await client.request('ls', { history: true }));

  // a changed secret: shown as a changed key, its old and new values nowhere
  box.write('eco.yml', ecosystem(port, mport, NEW_PASSWORD));
  assert.match((await run(['start', eco])).stdout, /config changed \(env\)/);
  assert.match((await run(['describe', 'web'])).stdout, /config changed, applies at next restart: env/);
  const reload = await run(['reload', 'web']);
  assert.equal(reload.code, 0, reload.stderr);
  assert.match(reload.stdout, /config changed: env/);
  frames.push(await client.request('describe', { app: 'web' }));
  // a refused file quotes no value
  box.write('eco.yml', ecosystem(port, mport, NEW_PASSWORD).replace(`DB_PASSWORD: "${NEW_PASSWORD}"`, `DB_PASSWORD: ["${BAD_PASSWORD}"]`));
  const refused = await run(['reload', 'web']);
  assert.equal(refused.code, 2);
  assert.match(refused.stderr, /apps\[0\]\.env\.DB_PASSWORD: must be a string/);
  await assert.rejects(client.request('start', { file: eco }), /** @param {any} err */ (err) => (frames.push(err.toJSON()), err.code === 'E_CONFIG'));

  const metrics = await httpGet(mport, '/metrics');
  assert.match(metrics.body, /superd_worker_up\{app="web"/);
  outputs.push(['GET /metrics', metrics.body], ['control frames', JSON.stringify(frames)]);

  // the dump keeps real values (resurrect restarts apps with them), for its owner only
  assert.equal((await run(['save'])).code, 0);
  assert.equal((await run(['save'])).code, 0);
  for (const f of ['dump.json', 'dump.json.bak']) {
    const p = path.join(box.home, f);
    assert.equal(fs.statSync(p).mode & 0o777, 0o600, `${f} is 0600`);
  }
  const dump = fs.readFileSync(path.join(box.home, 'dump.json'), 'utf8');
  assert.ok(dump.includes(NEW_PASSWORD) && dump.includes(SHELL_TOKEN), 'the dump has the real values');

  for (const f of ['daemon.log', 'daemon.err']) {
    const p = path.join(box.home, f);
    if (fs.existsSync(p)) outputs.push([f, fs.readFileSync(p, 'utf8')]);
  }
  assert.ok(outputs.find(([w]) => w === 'daemon.log')[1].includes('reload'), 'daemon.log was read');
  const raw = [...Object.values(SECRETS), URL_PASSWORD, ARG_PASSWORD, SHELL_TOKEN, NEW_PASSWORD, BAD_PASSWORD];
  for (const [what, text] of outputs) {
    for (const value of raw) assert.ok(!text.includes(value), `${what} shows the secret ${value}:\n${text.slice(Math.max(0, text.indexOf(value) - 300), text.indexOf(value) + 100)}`);
  }
});
