// New environments for running apps, read from the new workers' /proc/<pid>/environ:
// `reload --update-env` (the caller's environment under the file's env, which wins),
// `start <file> --env <name>` on a running app (a rolling reload, not a note), and
// `super env` (a worker's environment, secrets masked).
import test from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import { sandbox, freePort, lsJson, alive } from '../helpers/harness.js';
import { request } from '../helpers/requests.js';

const environOf = (pid) => Object.fromEntries(fs.readFileSync(`/proc/${pid}/environ`, 'utf8').split('\0').filter(Boolean)
  .map((kv) => [kv.slice(0, kv.indexOf('=')), kv.slice(kv.indexOf('=') + 1)]));
const pidsOf = async (box, name) => (await lsJson(box)).apps.find((a) => a.name === name).workers.map((w) => w.pid);

test('environment refresh on running apps', async (t) => {
  const box = await sandbox(t);
  box.fixture('http-server.cjs');
  const port = await freePort();
  // Written again after a subtest breaks it on purpose.
  const goodEco = `apps:
  - name: api
    script: http-server.cjs
    instances: 2
    env: { PORT: ${port}, LEVEL: file, DB_PASSWORD: hunter2 }
    env_prod: { LEVEL: prod }
`;
  const eco = box.write('eco.yml', goodEco);
  await box.start(eco, { env: { FROM_START: 'yes' } }); // setup, in-process (the CLI's own start is checked below)
  const first = await pidsOf(box, 'api');
  assert.equal(environOf(first[0]).FROM_START, 'yes');

  await t.test('reload --update-env: the caller\'s environment, under the file\'s env', async () => {
    const rl = await box.cli(['reload', 'api', '--update-env'], { env: { MYVAR: 'fresh', LEVEL: 'caller', FROM_START: 'no' } });
    assert.equal(rl.code, 0, rl.stderr);
    const pids = await pidsOf(box, 'api');
    assert.equal(pids.length, 2);
    for (const pid of pids) {
      assert.ok(!first.includes(pid), 'new workers');
      const env = environOf(pid);
      assert.equal(env.MYVAR, 'fresh');
      assert.equal(env.FROM_START, 'no');
      assert.equal(env.LEVEL, 'file', 'the file\'s env wins over the caller\'s');
    }
  });

  await t.test('reload without --update-env keeps the environment it had', async () => {
    const rl = await box.cli(['reload', 'api'], { env: { MYVAR: 'ignored' } });
    assert.equal(rl.code, 0, rl.stderr);
    for (const pid of await pidsOf(box, 'api')) assert.equal(environOf(pid).MYVAR, 'fresh');
  });

  await t.test('a refused reload --update-env leaves the environment alone', async () => {
    box.write('eco.yml', 'apps:\n  - name: api\n    script: http-server.cjs\n    instancez: 2\n');
    const before = await pidsOf(box, 'api');
    const rl = await box.cli(['reload', 'api', '--update-env'], { env: { MYVAR: 'refused' } });
    assert.equal(rl.code, 2);
    assert.match(rl.stderr, /E_CONFIG/);
    assert.deepEqual(await pidsOf(box, 'api'), before);
    // a worker that crashes now restarts with the environment it had
    process.kill(before[1], 'SIGKILL');
    let pids = before;
    for (let i = 0; i < 200 && (pids[1] === before[1] || pids[1] === null); i++) {
      await new Promise((resolve) => setTimeout(resolve, 50));
      pids = await pidsOf(box, 'api');
    }
    assert.notEqual(pids[1], before[1]);
    assert.equal(environOf(pids[1]).MYVAR, 'fresh');
  });

  await t.test('start <file> --env prod on a running app reloads it with that env', async () => {
    box.write('eco.yml', goodEco);
    const before = await pidsOf(box, 'api');
    const st = await box.cli(['start', eco, '--env', 'prod']);
    assert.equal(st.code, 0, st.stderr);
    assert.match(st.stdout, /api: reloading 2 workers \(config changed: env\)/);
    assert.match(st.stdout, /api: reloaded 2 workers/);
    assert.doesNotMatch(st.stdout, /apply it with/);
    const pids = await pidsOf(box, 'api');
    for (const pid of pids) {
      assert.ok(!before.includes(pid));
      assert.equal(environOf(pid).LEVEL, 'prod');
    }
    for (const pid of before) assert.equal(alive(pid), false, 'old workers retired');
    // again: nothing changes, nothing is reloaded
    const again = await box.cli(['start', eco, '--env', 'prod', '--json']);
    assert.equal(again.code, 0, again.stderr);
    const data = JSON.parse(again.stdout);
    assert.deepEqual(data.running, ['api']);
    assert.equal(data.reloaded, undefined);
    assert.deepEqual(await pidsOf(box, 'api'), pids);
    // a later reload reads the file with the env it was started with
    const reload = await request(box, 'reload', { target: ['api'] });
    assert.ok(reload.apps.every((a) => a.ok), JSON.stringify(reload));
    for (const pid of await pidsOf(box, 'api')) assert.equal(environOf(pid).LEVEL, 'prod');
  });

  await t.test('super env: a worker\'s environment, secrets masked', async () => {
    const [, pid1] = await pidsOf(box, 'api');
    const e = await box.cli(['env', 'api', '1']);
    assert.equal(e.code, 0, e.stderr);
    assert.match(e.stdout, /^LEVEL=prod$/m);
    assert.match(e.stdout, /^SUPER_SLOT=1$/m);
    assert.match(e.stdout, /^DB_PASSWORD=\*{8}$/m);
    assert.doesNotMatch(e.stdout, /hunter2/);
    const j = JSON.parse((await box.cli(['env', 'api#1', '--json'])).stdout);
    assert.equal(j.pid, pid1);
    assert.equal(j.from, 'process');
    assert.equal(j.env.NODE_APP_INSTANCE, '1');
    const bad = await box.cli(['env', 'api', '7']);
    assert.equal(bad.code, 2);
    assert.match(bad.stderr, /E_USAGE: api has no slot 7/);
  });
});
