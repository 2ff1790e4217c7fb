// Two apps on one port: in node:cluster the daemon keeps one server per address and would
// hand its connections to the workers of both. The second app's listen() fails instead,
// naming the first; both saying share_port: true share it on purpose.
import test from 'node:test';
import assert from 'node:assert/strict';
import { sandbox, freePort, httpGet, lsJson } from '../helpers/harness.js';
import { eventually } from '../helpers/wait.js';

const app = (name, port, extra = '', script = 'http-server.js') => `  - { name: ${name}, script: ${script}, env: { PORT: ${port} }${extra} }\n`;

test('a second app on a port another app holds is refused, unless both share it', async (t) => {
  const box = await sandbox(t);
  box.fixture('http-server.js');
  box.fixture('listen-loud.js'); // b prints a long report after the refusal: the reason is shown all the same
  box.fixture('closes-on-signal.js'); // a closes its server on SIGUSR2 and keeps running
  const [port, shared] = [await freePort(), await freePort()];
  await box.start(box.write('a.yml', `apps:\n${app('a', port, '', 'closes-on-signal.js')}${app('s1', shared, ', share_port: true')}`));

  const b = await box.cli(['start', box.write('b.yml', `apps:\n${app('b', port, '', 'listen-loud.js')}`)]);
  assert.equal(b.code, 1, b.stderr);
  assert.match(b.stderr, new RegExp(`b#0 \\| superd: listen on port ${port} refused: app a listens there; give b another port \\(or, to share it deliberately, set share_port: true on both apps\\)`));
  assert.match(b.stderr, /b was not kept/);
  assert.deepEqual((await lsJson(box)).apps.map((x) => x.name).sort(), ['a', 's1']);
  for (let i = 0; i < 6; i++) assert.match((await httpGet(port)).body, /app=a\n/, 'a keeps all its traffic');

  // One side sharing is not enough: s1 shares, c does not.
  const c = await box.cli(['start', box.write('c.yml', `apps:\n${app('c', shared)}`)]);
  assert.equal(c.code, 1);
  assert.match(c.stderr, /app s1 listens there; give c another port \(or, to share it deliberately, set share_port: true on c too\)/);
  // Both sharing: both answer.
  await box.start(box.write('s2.yml', `apps:\n${app('s2', shared, ', share_port: true')}`));
  const seen = new Set();
  for (let i = 0; i < 40 && seen.size < 2; i++) seen.add(/app=(\w+)/.exec((await httpGet(shared)).body)[1]);
  assert.deepEqual([...seen].sort(), ['s1', 's2']);

  // Once a's worker closed its server (it keeps running), the port is free for b.
  assert.equal((await box.cli(['signal', 'SIGUSR2', 'a'])).code, 0);
  await eventually(() => httpGet(port).then(() => false, () => true), { what: 'a\'s server closed', timeout: 10000 });
  const again = await box.cli(['start', 'b.yml'], { cwd: box.dir });
  assert.equal(again.code, 0, again.stderr);
  assert.match((await httpGet(port)).body, /app=b\n/);
  // Once s1 and s2 are gone, the shared port is free for c.
  assert.equal((await box.cli(['delete', 's1', 's2'])).code, 0);
  const c2 = await box.cli(['start', 'c.yml'], { cwd: box.dir });
  assert.equal(c2.code, 0, c2.stderr);
  assert.match((await httpGet(shared)).body, /app=c\n/);
});
