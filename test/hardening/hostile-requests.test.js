// Well-formed requests that used to hurt, found by the fuzz (test/hardening/fuzz.test.js):
// a `start` naming a device read it forever; "all" given to a single-app op acted on the
// first app (scale) or threw a TypeError in the daemon (E_INTERNAL) once no app was left.
import test from 'node:test';
import assert from 'node:assert/strict';
import path from 'node:path';
import { execFileSync } from 'node:child_process';
import { sandbox, lsJson } from '../helpers/harness.js';
import { loadEcosystem } from '../../lib/config/index.js';

test('an ecosystem path that is a device, a FIFO or a directory is refused unread', async (t) => {
  const box = await sandbox(t);
  const fifo = path.join(box.dir, 'eco.fifo');
  execFileSync('mkfifo', [fifo]);
  for (const [file, why] of [['/dev/zero', 'not a regular file'], ['/dev/urandom', 'not a regular file'], [fifo, 'not a regular file'], [box.dir, 'is a directory']]) {
    const err = await loadEcosystem(file).then(() => assert.fail(`${file} accepted`), (e) => e);
    assert.equal(err.code, 'E_CONFIG', file);
    assert.equal(err.details.problems.length, 1);
    assert.ok(err.details.problems[0].includes(`${file}: cannot read the ecosystem file: ${why}`), err.details.problems[0]);
  }
  // (`super start` takes a path for an ecosystem file by its name; /dev/zero would be a script)
  const fifoYml = path.join(box.dir, 'eco.yml');
  execFileSync('mkfifo', [fifoYml]);
  const r = await box.cli(['start', fifoYml], { timeout: 20000 });
  assert.equal(r.code, 2, r.stderr);
  assert.match(r.stderr, /^super: E_CONFIG: 1 problem in .*eco\.yml\n.*not a regular file: .*eco\.yml/);
  const dev = await box.cli(['start', '/dev/zero'], { timeout: 20000 });
  assert.equal(dev.code, 2, dev.stderr);
  assert.match(dev.stderr, /^super: E_CONFIG: cannot start \/dev\/zero: script: not executable: \/dev\/zero/);
});

test('the daemon refuses to read a device or FIFO a client names, and keeps answering', async (t) => {
  const box = await sandbox(t);
  box.fixture('idle.js');
  const eco = box.write('eco.yml', 'apps:\n  - name: bg\n    script: idle.js\n    ready_on: spawn\n');
  assert.equal((await box.cli(['start', eco])).code, 0);
  const fifo = path.join(box.dir, 'eco.fifo');
  execFileSync('mkfifo', [fifo]);
  const client = await box.client();
  t.after(() => client.close());
  for (const file of ['/dev/zero', '/dev/urandom', fifo]) {
    await assert.rejects(client.request('start', { file }, { timeout: 10000 }), /** @param {any} err */ (err) => err.code === 'E_CONFIG' && /not a regular file/.test(err.details.problems[0]));
  }
  assert.equal((await client.request('ping')).pong, true);
});

test('"all" is not an app for describe, scale and watch', async (t) => {
  const box = await sandbox(t);
  box.fixture('idle.js');
  const eco = box.write('eco.yml', 'apps:\n  - name: a\n    script: idle.js\n    ready_on: spawn\n  - name: b\n    script: idle.js\n    ready_on: spawn\n');
  assert.equal((await box.cli(['start', eco])).code, 0);
  const before = await lsJson(box);
  const client = await box.client();
  t.after(() => client.close());
  const refusals = async () => {
    /** @type {[string, object][]} */
    const requests = [['describe', { app: 'all' }], ['scale', { app: 'all', count: '3' }], ['watch', { app: 'all', on: true }]];
    for (const [op, args] of requests) {
      await assert.rejects(client.request(op, args), /** @param {any} err */ (err) => err.code === 'E_USAGE' && err.message.startsWith(`${op} works on one app`), op);
    }
  };
  await refusals();
  const after = await lsJson(box);
  assert.deepEqual(after.apps.map((a) => [a.name, a.workers.map((w) => w.pid)]), before.apps.map((a) => [a.name, a.workers.map((w) => w.pid)]), 'nothing scaled');
  assert.equal((await client.request('describe', { app: 'a' })).app.watch, null, 'nothing watched');

  // with no app left, the same requests are refused the same way (they threw a TypeError)
  await client.request('delete', { target: 'all' });
  await refusals();
  const r = await box.cli(['describe', 'all']);
  assert.equal(r.code, 2);
  assert.match(r.stderr, /^super: E_USAGE: describe works on one app/);
});
