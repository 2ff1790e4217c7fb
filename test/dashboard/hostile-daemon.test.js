// Issue 36, major 4: what a daemon sends is untrusted. A fake daemon (a real websocket
// server speaking the control protocol) sends, in turn: a "metrics" event with no apps, an
// `ls` answer whose history is {length: 1e12}, a message of endless non-final frames, and
// 5,000 apps. The real `super dashboard` watches it beside a well-behaved fake daemon: it
// stays up and answers, shows the bad host down with why and the good one up, and a page
// gets at most its bounded rows. A `super --host` command fed endless frames fails fast.
import test from 'node:test';
import assert from 'node:assert/strict';
import { WebSocketServer } from 'ws';
import { sandbox, freePort, httpGet } from '../helpers/harness.js';
import { startDashboard } from '../helpers/chromium.js';
import { page } from '../helpers/dashboard-page.js';
import { PROTOCOL } from '../../lib/ipc/protocol.js';

const app = (name, workers = 1, history) => ({
  name, status: 'online', workers: Array.from({ length: workers }, (_, slot) => ({ slot, status: 'online', pid: 1000 + slot, restarts: 0, metrics: { cpu: 1, memory: 1e6, history } })),
});

/**
 * A fake daemon on 127.0.0.1: says hello, answers `ls` with `ls()` (or leaves it to
 * `onLs`), and once subscribed runs `onSubscribe(ws, state)`; a subscribe naming a topic
 * outside `topics` is refused as a daemon of that version refuses it. Resolves with its
 * state: {host, sent: the most bytes of bad frames one connection took}.
 * @param {any} t
 * @param {{ls?: () => object, onSubscribe?: (ws: any, state: any) => void, onLs?: (ws: any, req: any, state: any) => void, topics?: string[]}} [o]
 */
async function fakeDaemon(t, { ls = () => ({ apps: [app('good')] }), onSubscribe = () => {}, onLs, topics } = {}) {
  const wss = new WebSocketServer({ host: '127.0.0.1', port: 0 });
  await new Promise((resolve) => wss.on('listening', resolve));
  t.after(() => new Promise((resolve) => {
    for (const c of wss.clients) c.terminate();
    wss.close(() => resolve());
  }));
  const state = { host: `127.0.0.1:${/** @type {import('node:net').AddressInfo} */ (wss.address()).port}`, sent: 0 };
  wss.on('connection', (ws) => {
    ws.on('error', () => {});
    ws.send(JSON.stringify({ hello: { protocol: PROTOCOL, pid: 4242, version: 'fake' } }));
    ws.on('message', (data) => {
      const req = JSON.parse(String(data));
      if (req.op === 'ls') {
        if (onLs) return onLs(ws, req, state);
        ws.send(JSON.stringify({ id: req.id, ok: true, data: ls() }));
      } else if (req.op === 'subscribe' && topics && !req.args.topics.every((x) => topics.includes(x))) {
        ws.send(JSON.stringify({ id: req.id, ok: false, error: { code: 'E_BAD_REQUEST', message: `subscribe: argument "topics" must be a list of topics from: ${topics.join(', ')}` } }));
      } else {
        ws.send(JSON.stringify({ id: req.id, ok: true, data: {} }));
        if (req.op === 'subscribe') onSubscribe(ws, state);
      }
    });
  });
  return state;
}

/**
 * Sends non-final continuation frames of 256 KiB until the peer closes (at most 128 MiB);
 * state.sent: the most one connection took (what the peer read, and what the kernel's
 * buffers held when it closed: a few MiB over the 32 MiB a client reads of one message).
 */
function endlessFrames(ws, state) {
  const chunk = Buffer.alloc(256 * 1024, 0x20);
  let sent = 0;
  const more = () => {
    if (ws.readyState !== ws.OPEN || sent >= 128 * 1024 * 1024) return;
    sent += chunk.length;
    state.sent = Math.max(state.sent, sent);
    ws.send(chunk, { fin: false, binary: false }, () => setImmediate(more));
  };
  more();
}

/** A page with the token until its state shows `host` in `state` (bounded); returns that state message. */
async function stateWhere(p, pred, timeout = 15_000) {
  const deadline = Date.now() + timeout;
  for (;;) {
    const m = await p.next('state', Math.max(1, deadline - Date.now()));
    if (pred(m)) return m;
  }
}

const hostOf = (m, name) => m.hosts.find((h) => h.name === name);

test('a hostile daemon fails alone: the dashboard stays up, the other host stays shown, pages stay bounded', { timeout: 90_000 }, async (t) => {
  const box = await sandbox(t);
  const tokenFile = box.write('token', `${'c'.repeat(64)}\n`);
  const good = await fakeDaemon(t);
  const down = (code) => (h) => h.state === 'down' && h.error?.startsWith(code);
  /** @type {Record<string, [object, (host: object) => boolean]>} what it sends, how it is shown */
  const hostile = {
    'a metrics event without apps': [{ onSubscribe: (ws) => ws.send(JSON.stringify({ event: 'metrics', data: {} })) }, down('E_PROTOCOL')],
    'an app without workers': [{ ls: () => ({ apps: [{ name: 'x', workers: 'many' }] }) }, down('E_PROTOCOL')],
    'an ls answer whose history is {length: 1e12}': [{ ls: () => ({ apps: [app('h', 1, { cpu: { length: 1e12 }, memory: { length: 1e12 } })] }) }, (h) => h.state === 'up' && h.apps[0]?.name === 'h'],
    'a message of endless non-final frames': [{ onSubscribe: endlessFrames }, down('E_FRAME_TOO_LARGE')],
    'a deploy event without a release': [{ onSubscribe: (ws) => ws.send(JSON.stringify({ event: 'deploy', data: { state: 'done' } })) }, down('E_PROTOCOL')],
    'a deploy event of 100 kB strings': [
      { onSubscribe: (ws) => ws.send(JSON.stringify({ event: 'deploy', data: { id: 'i'.repeat(1e5), version: 'v'.repeat(1e5), state: 'rolling', step: 's'.repeat(1e5), at: 1, extra: 'e'.repeat(1e5) } })) },
      (h) => h.state === 'up' && JSON.stringify(h.deploy) === JSON.stringify({ id: 'i'.repeat(128), version: 'v'.repeat(128), previous: null, state: 'rolling', step: 's'.repeat(128), reason: null, at: 1 }),
    ],
    // A daemon older than the "deploy" topic refuses it: the dashboard subscribes again
    // without it, and gets that daemon's events (its deploy records in "metrics").
    'a daemon without the deploy topic': [
      {
        topics: ['worker', 'reload', 'metrics', 'watch', 'log'],
        onSubscribe: (ws) => ws.send(JSON.stringify({ event: 'metrics', data: { apps: [app('old')], deploy: { id: 'd', version: 'v2', state: 'done', at: 1 } } })),
      },
      (h) => h.state === 'up' && h.apps[0]?.name === 'old' && h.deploy?.version === 'v2',
    ],
    'a deploy record without a release': [{ ls: () => ({ apps: [app('d')], deploy: { state: 'done' } }) }, down('E_PROTOCOL')],
    'a deploy record of 100 kB strings': [
      { ls: () => ({ apps: [app('d')], deploy: { id: 'i'.repeat(1e5), version: 'v'.repeat(1e5), state: 'x'.repeat(1e5), step: 's'.repeat(1e5), reason: 'r'.repeat(1e5), at: 1e300, extra: 'e'.repeat(1e5) } }) },
      (h) => h.state === 'up' && JSON.stringify(h.deploy) === JSON.stringify({ id: 'i'.repeat(128), version: 'v'.repeat(128), previous: null, state: '?', step: 's'.repeat(128), reason: 'r'.repeat(1024), at: null }),
    ],
  };
  const bad = {};
  for (const [name, [o]] of Object.entries(hostile)) bad[name] = await fakeDaemon(t, o);
  const many = await fakeDaemon(t, { ls: () => ({ apps: Array.from({ length: 5000 }, (_, i) => app(`app-${i}`, 2)) }) });

  const port = await freePort();
  const hosts = [good, ...Object.values(bad), many].flatMap((d) => ['--host', d.host]);
  const dash = await startDashboard(box.home, ['--listen', `127.0.0.1:${port}`, '--token-file', tokenFile, ...hosts]);
  t.after(() => dash.stop());
  const p = await page(dash.base, ['superd', `superd.${dash.token}`]);
  t.after(() => p.ws.close());

  for (const [name, d] of Object.entries(bad)) {
    await t.test(`${name}: that host is shown down with why (or bounded); the others are up`, async () => {
      const m = await stateWhere(p, (s) => hostile[name][1](hostOf(s, d.host)) && hostOf(s, good.host).state === 'up' && hostOf(s, good.host).apps.length === 1);
      assert.equal(hostOf(m, good.host).apps[0].name, 'good');
      assert.equal((await httpGet(port, '/')).status, 200, 'the dashboard answers HTTP');
    });
  }

  await t.test('endless frames are cut at the message bound, not held', () => {
    const d = bad['a message of endless non-final frames'];
    assert.ok(d.sent > 0 && d.sent <= 64 * 1024 * 1024, `the dashboard read ${d.sent} bytes of one message before closing`);
  });

  await t.test('5,000 apps: a page gets 100 of them and the count of the rest', async () => {
    const m = await stateWhere(p, (s) => hostOf(s, many.host).apps.length > 0);
    const h = hostOf(m, many.host);
    assert.equal(h.apps.length, 100);
    assert.equal(h.more_apps, 4900);
    assert.ok(JSON.stringify(m).length < 2 * 1024 * 1024, 'a state message stays small');
  });
  assert.equal(dash.child.exitCode, null, `the dashboard is running: ${dash.stderr()}`);
});

test('super --host: a daemon that sends endless frames gets E_FRAME_TOO_LARGE, fast', { timeout: 60_000 }, async (t) => {
  const box = await sandbox(t);
  const tokenFile = box.write('token', `${'c'.repeat(64)}\n`);
  const d = await fakeDaemon(t, { onLs: (ws, req, state) => endlessFrames(ws, state) });
  const r = await box.cli(['--host', d.host, '--token-file', tokenFile, 'ls'], { timeout: 30_000 });
  assert.equal(r.code, 2, r.stderr);
  assert.match(r.stderr, /E_FRAME_TOO_LARGE/);
  assert.ok(d.sent <= 64 * 1024 * 1024, `the client read ${d.sent} bytes of one message`);
});

test('super --host ls and monit: a malformed answer is E_PROTOCOL, exit 2, one line', { timeout: 30_000 }, async (t) => {
  const box = await sandbox(t);
  const tokenFile = box.write('token', `${'c'.repeat(64)}\n`);
  for (const answer of [{ apps: 'x' }, { apps: [{ name: 'a', workers: { length: 1e12 } }] }, { apps: [{ name: 'a', workers: [{ slot: 'x' }] }] }]) {
    const d = await fakeDaemon(t, { ls: () => answer });
    for (const command of ['ls', 'monit']) { // monit off a terminal: one snapshot
      const r = await box.cli(['--host', d.host, '--token-file', tokenFile, command], { timeout: 15_000 });
      assert.equal(r.code, 2, `${command}: ${r.stderr}`);
      assert.match(r.stderr, /^super: E_PROTOCOL: the daemon sent a malformed message/);
      assert.equal(r.stderr.trim().split('\n').length, 1, r.stderr);
    }
  }
});
