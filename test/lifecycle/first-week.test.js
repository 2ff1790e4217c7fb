// What a new user reads must be true (issue 37), on one daemon: a failed start uses up no
// app id and leaves no stderr that makes the next, healthy app look broken; a second file
// defining a running app's name says what applies it; a capacity copy of an autoscaled app
// runs the counts it is given. The tests run in order (the first needs a fresh daemon: ids).
import test from 'node:test';
import assert from 'node:assert/strict';
import { freePort, httpGet, lsJson } from '../helpers/harness.js';
import { fileSandbox, deleteAtEnd } from '../helpers/file-daemon.js';
import { eventually } from '../helpers/wait.js';

const box = await fileSandbox();
box.fixture('versioned.cjs');
const app = (name, port, { version = 'v1', boot = '', extra = '' } = {}) => `
  - name: ${name}
    script: versioned.cjs
    env: { PORT: ${port}, VERSION: ${version}, BOOT: "${boot}" }
${extra}`;

test('a failed start uses up no id, and its stderr is not the next app\'s', async (t) => {
  const port = await freePort();
  deleteAtEnd(t, box, ['web']);
  let r = await box.cli(['start', box.write('bad.yml', `apps:${app('web', port, { boot: 'throw' })}`)]);
  assert.equal(r.code, 1, r.stdout + r.stderr);
  assert.match(r.stderr, /boom: v1 cannot start/);
  await box.start(box.write('good.yml', `apps:${app('web', port, { version: 'v2' })}`));
  assert.deepEqual((await lsJson(box)).apps.map((a) => [a.id, a.name]), [[0, 'web']]);
  r = await box.cli(['describe', '0']);
  assert.equal(r.code, 0, r.stderr);
  assert.match(r.stdout, /^web\b/m);
  assert.doesNotMatch(r.stdout, /boom|last stderr lines/, 'the failed start\'s stderr is not the healthy app\'s');
});

test('describe keeps the stderr of a crashed worker its restart replaced', async (t) => {
  const port = await freePort();
  deleteAtEnd(t, box, ['crashy']);
  // Its first life writes to stderr and exits after min_uptime; the restart lives on.
  box.write('crashy.cjs', `const fs = require('node:fs');
if (!fs.existsSync(process.env.MARK)) { fs.writeFileSync(process.env.MARK, ''); console.error('first life crashed'); setTimeout(() => process.exit(3), 1200); }
require('node:http').createServer((req, res) => res.end('ok')).listen(${port}, '127.0.0.1');
`);
  await box.start(box.write('crashy.yml', `apps:\n  - name: crashy\n    script: crashy.cjs\n    env: { MARK: ${JSON.stringify(box.dir + '/crashy.mark')} }\n`));
  await eventually(async () => (await lsJson(box)).apps.find((a) => a.name === 'crashy')?.workers[0].restarts === 1, { what: 'the restart after the crash', timeout: 15000 });
  const r = await box.cli(['describe', 'crashy']);
  assert.match(r.stdout, /last stderr lines \(since its workers started\):\n {2}\| first life crashed/);
});

test('a second file defining a running app says what applies it, and that does', async (t) => {
  const port = await freePort();
  deleteAtEnd(t, box, ['twin']);
  await box.start(box.write('one.yml', `apps:${app('twin', port)}`));
  const two = box.write('two.yml', `apps:${app('twin', port, { version: 'v2' })}`);
  const r = await box.cli(['start', two]);
  assert.equal(r.code, 0, r.stderr);
  const hint = r.stdout.split('\n').find((l) => l.startsWith('twin is already running'));
  assert.match(hint, /from .*one\.yml, which its reloads re-read; this file's twin differs \(env\): `super restart twin` runs it/);
  assert.equal((await box.cli(['restart', 'twin'])).code, 0);
  assert.match((await httpGet(port)).body, /^v2 /);
});

test('the capacity copy of an autoscaled app does not autoscale', async (t) => {
  const [port, copyPort] = [await freePort(), await freePort()];
  deleteAtEnd(t, box, ['pool']);
  await box.start(box.write('pool.yml', `apps:${app('pool', port, { extra: '    instances: { min: 1, max: 2 }\n    autoscale: { up: { inflight: 1, for: 100ms } }' })}`));
  const client = await box.client();
  t.after(() => client.close());
  await client.request('capacity-copy', { app: 'pool', port: copyPort }, { timeout: 60000 });
  const copy = (await lsJson(box)).apps.find((a) => a.name === 'pool~capacity');
  assert.equal(copy.autoscale ?? null, null, 'no autoscale: the copy runs the counts super capacity reports');
  assert.equal(copy.workers.length, 1);
  const scaled = await client.request('scale', { app: 'pool~capacity', count: '3' }, { timeout: 60000 });
  assert.equal(scaled.to, 3, 'beyond the app\'s autoscale bounds: the measurement decides');
});

test('profiling an app whose worker is busy with another diagnostic profiles the others and says which was skipped', async (t) => {
  const port = await freePort();
  deleteAtEnd(t, box, ['prof']);
  await box.start(box.write('prof.yml', `apps:${app('prof', port, { extra: '    instances: 2' })}`));
  const client = await box.client();
  t.after(() => client.close());
  // #0 busy (as with a stall capture): one request in flight on it while the app's profile is asked.
  const first = client.request('profile', { app: 'prof', slot: 0, duration: 4000 }, { timeout: 90000 });
  // Requests on one connection are taken in order: once this one is refused, #0 is being profiled.
  assert.equal((await client.request('heap', { app: 'prof', slot: 0 }).catch((err) => err)).code, 'E_BUSY');
  const r = await box.cli(['profile', 'prof', '--duration', '1s']);
  assert.equal(r.code, 0, r.stdout + r.stderr);
  assert.match(r.stdout, /^prof#1 \(pid \d+\): /m);
  assert.doesNotMatch(r.stdout, /^prof#0/m);
  assert.match(r.stderr, /^skipped prof#0: a CPU profile of this worker is being taken; wait for it to finish$/m);
  assert.equal((await first).files.length, 1);
});
