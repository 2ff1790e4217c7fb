// Issue 36, critical 2 and major 3: the dashboard's token never rides in a program's
// arguments, changes at every start, and is needed to see anything (on loopback too), and
// pages without it cannot take the slots of pages with it. `super dashboard --open` runs a
// fake browser ($BROWSER) that records its argv: a one-time code, no token; the code works
// once, only for this user's connection (another real user, `nobody`, is refused and does
// not spend it), and is traded for the token. A restart makes the old token useless.
import test from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { spawn } from 'node:child_process';
import { sandbox, freePort, ROOT } from '../helpers/harness.js';
import { startDashboard } from '../helpers/chromium.js';
import { page } from '../helpers/dashboard-page.js';
import { eventually } from '../helpers/wait.js';
import { OneTimeCodes } from '../../lib/dashboard/open-codes.js';

const NOBODY = 65534;
const asRoot = process.getuid?.() === 0;

/** As another real user: a page's websocket that sends `send` and reports the types of what it got. */
function pageAsNobody(box, base, send) {
  const script = box.write('nobody-page.mjs', `
    import { connectWebSocket } from ${JSON.stringify(path.join(ROOT, 'lib/ipc/ws-client.js'))};
    const url = new URL(process.argv[2]);
    const ws = connectWebSocket({ host: url.hostname, port: Number(url.port), hostHeader: url.host, path: '/ws', headers: { Origin: url.origin, 'Sec-WebSocket-Protocol': 'superd' } });
    const got = [];
    ws.on('open', () => { for (const m of JSON.parse(process.argv[3])) ws.send(JSON.stringify(m)); });
    const done = () => { process.stdout.write(JSON.stringify(got)); process.exit(0); };
    // until the answer to what it sent (an error or the token), or 10 s
    ws.on('message', (t) => { got.push(JSON.parse(t)); if (['error', 'token'].includes(got.at(-1).type)) setTimeout(done, 200); });
    ws.on('error', (e) => { got.push({ type: 'failed', message: e.message }); done(); });
    setTimeout(done, 10000);
  `);
  fs.chmodSync(box.dir, 0o755);
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [script, base, JSON.stringify(send)], { uid: NOBODY, gid: NOBODY, cwd: '/', stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    child.stdout.on('data', (d) => (out += d));
    child.stderr.on('data', (d) => (err += d));
    child.on('error', reject);
    child.on('close', (code) => (code === 0 ? resolve(JSON.parse(out)) : reject(new Error(`nobody's page exited ${code}: ${err}`))));
  });
}

test('a one-time code expires, and works once', () => {
  const codes = new OneTimeCodes({ ttlMs: 1000 });
  const a = codes.issue(0);
  assert.equal(codes.redeem(a, 500), true);
  assert.equal(codes.redeem(a, 600), false, 'spent');
  const b = codes.issue(0);
  assert.equal(codes.redeem(b, 1000), false, 'expired');
  assert.equal(codes.redeem('0'.repeat(32), 0), false);
  assert.equal(codes.redeem(undefined, 0), false);
});

test('--open: no token in argv, a code that works once for this user; a token per start; seeing needs it', { timeout: 60_000 }, async (t) => {
  const box = await sandbox(t);
  const argvFile = path.join(box.dir, 'browser-argv');
  const browser = box.write('browser.sh', `#!/bin/sh\nprintf '%s\\n' "$@" > "${argvFile}"\n`);
  fs.chmodSync(browser, 0o755);
  const port = await freePort();
  const dash = await startDashboard(box.home, ['--listen', `127.0.0.1:${port}`, '--open'], { env: { BROWSER: browser } });
  t.after(() => dash.stop());
  const token = dash.token;
  assert.match(token, /^[0-9a-f]{64}$/, 'the printed link carries the token');

  const argv = await eventually(() => (fs.existsSync(argvFile) ? fs.readFileSync(argvFile, 'utf8') : null), { timeout: 10_000, what: 'the browser started' });
  assert.ok(!argv.includes(token), `the browser's arguments hold the token: ${argv}`);
  const code = /#code=([0-9a-f]{32})$/m.exec(argv)?.[1];
  assert.ok(code, `a one-time code in ${argv}`);

  await t.test('without the token a page sees nothing and may do nothing', async () => {
    const p = await page(dash.base);
    t.after(() => p.ws.close());
    const hello = await p.next('hello');
    assert.equal(hello.needToken, true);
    assert.equal(hello.canAct, false);
    p.ws.send(JSON.stringify({ type: 'action', id: 1, action: 'describe', host: 'local', app: 'web' }));
    assert.equal((await p.next('result')).error.code, 'E_AUTH');
    assert.deepEqual(p.messages.filter((m) => ['state', 'logs', 'history'].includes(m.type)), []);
  });

  await t.test('another user cannot trade the code (and does not spend it)', { skip: !asRoot && 'needs root to run as nobody' }, async () => {
    const got = await pageAsNobody(box, dash.base, [{ type: 'auth', code }]);
    assert.deepEqual(got.map((m) => m.type).filter((x) => x !== 'hello'), ['error'], JSON.stringify(got));
    assert.equal(got.find((m) => m.type === 'error').error.code, 'E_AUTH');
    assert.ok(got.every((m) => m.type !== 'token' && m.type !== 'state'), JSON.stringify(got));
  });

  await t.test('the code is traded for the token once, never again', async () => {
    const p = await page(dash.base);
    t.after(() => p.ws.close());
    await p.next('hello');
    p.ws.send(JSON.stringify({ type: 'auth', code }));
    assert.equal((await p.next('token')).token, token);
    assert.equal((await p.next('hello')).canAct, true);
    await p.next('state');
    const again = await page(dash.base);
    t.after(() => again.ws.close());
    await again.next('hello');
    again.ws.send(JSON.stringify({ type: 'auth', code }));
    assert.equal((await again.next('error')).error.code, 'E_AUTH');
    assert.equal((await again.next('hello')).needToken, true);
  });

  await t.test('pages without the token cannot hold the slots of a page with it', async () => {
    const idle = [];
    t.after(() => idle.forEach((p) => p.ws.terminate()));
    for (let i = 0; i < 40; i++) idle.push(await page(dash.base));
    const p = await page(dash.base, ['superd', `superd.${token}`]);
    t.after(() => p.ws.close());
    assert.equal((await p.next('hello')).canAct, true);
    await p.next('state');
  });

  await t.test('a new token at every start: the old one sees nothing', async () => {
    await dash.stop();
    const again = await startDashboard(box.home, ['--listen', `127.0.0.1:${port}`]);
    t.after(() => again.stop());
    assert.notEqual(again.token, token);
    assert.equal(fs.readFileSync(path.join(box.home, 'dashboard-token'), 'utf8').trim(), again.token);
    assert.equal(fs.statSync(path.join(box.home, 'dashboard-token')).mode & 0o777, 0o600);
    const old = await page(again.base, ['superd', `superd.${token}`]);
    t.after(() => old.ws.close());
    assert.equal((await old.next('hello')).needToken, true);
    const fresh = await page(again.base, ['superd', `superd.${again.token}`]);
    t.after(() => fresh.ws.close());
    assert.equal((await fresh.next('hello')).canAct, true);
  });
});
