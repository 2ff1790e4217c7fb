// Fork-mode apps on a fixed port. A Node script's listening sockets are the daemon's
// (lib/master/process/shared-listen.js): its reload drops nothing, a stop frees the port, a
// second app asking for the port gets EADDRINUSE. A process that binds its port itself (the
// usual `script: npm, args: start` app) cannot have a replacement beside it: its reload stops
// the old worker first, says so in one line, and succeeds. One daemon for the file.
import test from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { freePort, httpGet } from '../helpers/harness.js';
import { fileSandbox, deleteAtEnd } from '../helpers/file-daemon.js';
import { eventually } from '../helpers/wait.js';
import { startLoad } from '../helpers/load.js';

const box = await fileSandbox();
box.fixture('versioned.cjs');
fs.mkdirSync(path.join(box.dir, 'pkg'));
fs.copyFileSync(path.join(box.dir, 'versioned.cjs'), path.join(box.dir, 'pkg', 'server.cjs'));
box.write('pkg/package.json', JSON.stringify({ name: 'pkg', version: '1.0.0', scripts: { start: 'node server.cjs' } }));

const webApp = (name, port, version) => `
  - name: ${name}
    script: versioned.cjs
    exec_mode: fork
    env: { PORT: ${port}, VERSION: ${version} }
`;
const npmApp = (port, version) => `
  - name: npmapp
    script: npm
    args: start
    cwd: pkg
    env: { PORT: ${port}, VERSION: ${version} }
`;

/** Waits (bounded) until the app on `port` answers a body matching `re`. */
const waitBody = (port, re) => eventually(() => httpGet(port).then((r) => re.test(r.body), () => false), { what: `port ${port} answering ${re}`, timeout: 15000 });

/** Whether a connection to `port` is refused (nothing listens). */
const refused = (port) => new Promise((resolve) => {
  const s = net.connect(port, '127.0.0.1', () => {
    s.destroy();
    resolve(false);
  }).on('error', (/** @type {NodeJS.ErrnoException} */ err) => resolve(err.code === 'ECONNREFUSED'));
});

test('a fork-mode Node server reloads under load without a failed request; stop frees its port; another app cannot take it', async (t) => {
  const port = await freePort();
  deleteAtEnd(t, box, ['web', 'thief']);
  await box.start(box.write('web.yml', `apps:${webApp('web', port, 'v1')}`));
  await waitBody(port, /^v1 /);
  const load = startLoad({ port, connections: 8, keepAlive: true, maxRequests: 200000, maxMs: 60000 });
  t.after(() => load.stop());
  for (const v of ['v2', 'v3']) {
    box.write('web.yml', `apps:${webApp('web', port, v)}`);
    const r = await box.cli(['reload', 'web']);
    assert.equal(r.code, 0, r.stdout + r.stderr);
    assert.doesNotMatch(r.stdout, /fork mode/, 'a replacement beside the old worker: nothing to say');
  }
  const res = await load.stop();
  assert.ok(res.sent > 200, `the load ran (${res.sent} requests)`);
  assert.equal(res.failed, 0, `failed requests: ${JSON.stringify(res.errors)}`);
  assert.equal(res.non2xx, 0, JSON.stringify(res.statuses));
  assert.match((await httpGet(port)).body, /^v3 /);

  // The port is the app's: another app's worker gets EADDRINUSE, as two processes would.
  // (min_uptime: ready only once up that long, however slow its boot: its EADDRINUSE exit comes first)
  const thief = await box.cli(['start', box.write('thief.yml', `apps:${webApp('thief', port, 'x')}    min_uptime: 20s\n`)]);
  assert.equal(thief.code, 1, thief.stdout + thief.stderr);
  assert.match(thief.stderr, /thief#0 \| Error: listen EADDRINUSE: address already in use 127\.0\.0\.1:\d+/);
  // Stopped, the app leaves no socket behind; started again, it binds it anew.
  assert.equal((await box.cli(['stop', 'web'])).code, 0);
  assert.equal(await refused(port), true, 'nothing listens once the app is stopped');
  assert.equal((await box.cli(['start', 'web'])).code, 0);
  await waitBody(port, /^v3 /);
});

test('reload all of an npm start app on a fixed port stops its old worker first and succeeds', async (t) => {
  const port = await freePort();
  const file = box.write('npm.yml', `apps:${npmApp(port, 'v1')}`);
  deleteAtEnd(t, box, ['npmapp']);
  await box.start(file);
  await waitBody(port, /^v1 /);
  box.write('npm.yml', `apps:${npmApp(port, 'v2')}`);
  const r = await box.cli(['reload', 'all']);
  assert.equal(r.code, 0, r.stdout + r.stderr);
  const said = r.stdout.split('\n').filter((l) => l.startsWith('npmapp: fork mode'));
  assert.equal(said.length, 1, r.stdout);
  assert.match(said[0], new RegExp(`holds 127\\.0\\.0\\.1:${port} itself: its worker stops before its replacement starts \\(a short gap; exec_mode: cluster reloads it without one when its package script is node <file>\\)`));
  await waitBody(port, /^v2 /);
});

test('super upgrade hands a fork-mode Node server\'s socket to the new daemon: no failed request', async (t) => {
  const port = await freePort();
  deleteAtEnd(t, box, ['up']);
  await box.start(box.write('up.yml', `apps:${webApp('up', port, 'v1')}`));
  await waitBody(port, /^v1 /);
  const load = startLoad({ port, connections: 4, keepAlive: true, maxRequests: 200000, maxMs: 60000 });
  t.after(() => load.stop());
  const r = await box.cli(['upgrade']);
  assert.equal(r.code, 0, r.stdout + r.stderr);
  const res = await load.stop();
  assert.ok(res.sent > 100, `the load ran (${res.sent} requests)`);
  assert.equal(res.failed, 0, `failed requests: ${JSON.stringify(res.errors)}`);
  await waitBody(port, /^v1 /);
});
