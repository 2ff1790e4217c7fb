// A fork-mode app binds its port itself, so a replacement started beside its old worker
// gets EADDRINUSE: the reload stops each old worker first, says so in one line, and
// succeeds. A Node script in fork mode, and the usual `script: npm, args: start` app.
import test from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { freePort, httpGet } from '../helpers/harness.js';
import { fileSandbox, deleteAtEnd } from '../helpers/file-daemon.js';
import { eventually } from '../helpers/wait.js';

const box = await fileSandbox();
box.fixture('versioned.cjs');
fs.mkdirSync(path.join(box.dir, 'pkg'));
fs.copyFileSync(path.join(box.dir, 'versioned.cjs'), path.join(box.dir, 'pkg', 'server.cjs'));
box.write('pkg/package.json', JSON.stringify({ name: 'pkg', version: '1.0.0', scripts: { start: 'node server.cjs' } }));

const eco = (web, npm, version) => `
apps:
  - name: web
    script: versioned.cjs
    exec_mode: fork
    env: { PORT: ${web}, VERSION: ${version} }
  - name: npmapp
    script: npm
    args: start
    cwd: pkg
    env: { PORT: ${npm}, VERSION: ${version} }
`;

test('reload all of fork-mode apps on fixed ports stops each old worker first and succeeds', async (t) => {
  const [web, npm] = [await freePort(), await freePort()];
  const file = box.write('eco.yml', eco(web, npm, 'v1'));
  deleteAtEnd(t, box, ['web', 'npmapp']);
  await box.start(file);
  for (const port of [web, npm]) await waitBody(port, /^v1 /);
  box.write('eco.yml', eco(web, npm, 'v2'));
  const r = await box.cli(['reload', 'all']);
  assert.equal(r.code, 0, r.stdout + r.stderr);
  for (const [app, port] of [['web', web], ['npmapp', npm]]) {
    const said = r.stdout.split('\n').filter((l) => l.startsWith(`${app}: fork mode`));
    assert.equal(said.length, 1, r.stdout);
    assert.match(said[0], new RegExp(`holds 127\\.0\\.0\\.1:${port} itself: its worker stops before its replacement starts`));
    await waitBody(port, /^v2 /);
  }
});

/** Waits (bounded) until the app on `port` answers a body matching `re`. */
const waitBody = (port, re) => eventually(() => httpGet(port).then((r) => re.test(r.body), () => false), { what: `port ${port} answering ${re}`, timeout: 15000 });
