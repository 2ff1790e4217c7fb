// Issue 14, minor: secrets the masking missed. Connection strings (Password=...), DSNs
// that start with user:password@ and *_PASS names are masked in `describe`, and an env
// written as one string (`env: "DB_PASSWORD=..."`) is refused without echoing it, by the
// CLI and by the daemon.
import test from 'node:test';
import assert from 'node:assert/strict';
import { sandbox } from '../helpers/harness.js';

const HIDDEN = ['adopw-1Qa9', 'libpqpw-2Ws8', 'dsnpw-3Ed7', 'smtppw-4Rf6', 'envpw-5Tg5', 'sk_live_4eC39HqLyjWDarjtT1zdp7dc', `ghp_${'Zx9'.repeat(12)}`];

test('describe masks connection strings, DSNs and *_PASS; a one-string env is refused without its value', { timeout: 60000 }, async (t) => {
  const box = await sandbox(t);
  box.fixture('idle.js');
  const env = {
    MSSQL: `Server=db;User Id=app;Password=${HIDDEN[0]};Database=app`,
    PG_CONN: `host=db user=app password=${HIDDEN[1]} dbname=app`,
    MYSQL: `app:${HIDDEN[2]}@tcp(db:3306)/app`,
    SMTP_PASS: HIDDEN[3],
    STRIPE: HIDDEN[5], // names not on the list, values shaped like credentials (issue 36)
    CI_PUSH: HIDDEN[6],
  };
  const eco = box.write('eco.yml', `apps:\n  - name: idle\n    script: idle.js\n    ready_on: spawn\n    env:\n${Object.entries(env).map(([k, v]) => `      ${k}: ${JSON.stringify(v)}\n`).join('')}`);
  assert.equal((await box.cli(['start', eco])).code, 0);
  for (const args of [['describe', 'idle'], ['describe', 'idle', '--json']]) {
    const r = await box.cli(args);
    assert.equal(r.code, 0, r.stderr);
    for (const secret of HIDDEN) assert.ok(!r.stdout.includes(secret), `${args.join(' ')} shows ${secret}`);
    assert.match(r.stdout, /Password=\*{8}/);
    assert.match(r.stdout, /app:\*{8}@tcp\(db:3306\)/);
  }

  const bad = box.write('bad.yml', `apps:\n  - name: bad\n    script: idle.js\n    env: "DB_PASSWORD=${HIDDEN[4]}"\n`);
  const cli = await box.cli(['start', bad]);
  assert.equal(cli.code, 2);
  assert.match(cli.stderr, /apps\[0\]\.env: must be a mapping .*\(got a string\)/);
  assert.ok(!cli.stderr.includes(HIDDEN[4]), cli.stderr);
  const client = await box.client();
  t.after(() => client.close());
  await assert.rejects(client.request('start', { file: bad }), /** @param {any} err */ (err) => {
    assert.equal(err.code, 'E_CONFIG');
    assert.ok(!JSON.stringify(err.details).includes(HIDDEN[4]), err.details.problems[0]);
    return true;
  });
});
