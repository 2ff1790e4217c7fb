// Garbage on the control socket gets error replies; the daemon and its apps carry on.
import test from 'node:test';
import assert from 'node:assert/strict';
import net from 'node:net';
import path from 'node:path';
import { sandbox, freePort, httpGet, lsJson } from '../helpers/harness.js';
import { connectWebSocket } from '../../lib/ipc/ws-client.js';
import { MAX_FRAME } from '../../lib/ipc/protocol.js';

function rawSession(home) {
  return new Promise((resolve, reject) => {
    const ws = connectWebSocket({ socketPath: path.join(home, 'super.sock') });
    const frames = [];
    const waiters = [];
    ws.on('message', (m) => {
      frames.push(JSON.parse(m));
      while (waiters.length && frames.length >= waiters[0].n) waiters.shift().resolve();
    });
    ws.on('error', reject);
    ws.on('open', () => resolve({
      ws,
      frames,
      until: (n) => (frames.length >= n ? Promise.resolve() : new Promise((r) => waiters.push({ n, resolve: r }))),
      closed: new Promise((r) => ws.on('close', (code, reason) => r({ code, reason }))),
    }));
  });
}

test('malformed, unknown and oversized control messages are answered, never fatal', async (t) => {
  const box = await sandbox(t);
  const port = await freePort();
  box.fixture('http-server.js');
  const eco = box.write('eco.yml', `apps:\n  - name: web\n    script: http-server.js\n    instances: 2\n    env: { PORT: ${port} }\n`);
  await box.start(eco);
  const pids = (await lsJson(box)).apps[0].workers.map((w) => w.pid);

  const s = await rawSession(box.home);
  await s.until(1);
  assert.equal(s.frames[0].hello.protocol, 1);
  const garbage = ['not json', '[]', '42', '{"op":"ls"}', '{"id":1}', '{"id":2,"op":"explode"}', '{"id":3,"op":"stop","args":{"target":7}}',
    '{"id":4,"op":"stop","args":{"target":"nope"}}', '{"id":5,"op":"delete","args":{"target":"web","extra":true}}', '{"id":6,"op":"__proto__"}',
    '{"id":7,"op":"scale","args":{"app":"web","count":"-9999999999"}}', '\u0000\u0001\u0002'];
  for (const g of garbage) s.ws.send(g);
  await s.until(1 + garbage.length);
  // Replies are routed by id, not ordered: async ops (id 4) may answer after later frames.
  const rank = (f) => (f.id === null ? -1 : f.id);
  const codes = s.frames.slice(1).map((f) => [f.id, f.ok, f.error?.code]).sort((a, b) => rank({ id: a[0] }) - rank({ id: b[0] }));
  assert.deepEqual(codes, [
    [null, false, 'E_BAD_REQUEST'], [null, false, 'E_BAD_REQUEST'], [null, false, 'E_BAD_REQUEST'], [null, false, 'E_BAD_REQUEST'],
    [null, false, 'E_BAD_REQUEST'], [1, false, 'E_BAD_REQUEST'], [2, false, 'E_UNKNOWN_OP'], [3, false, 'E_BAD_REQUEST'],
    [4, false, 'E_APP_NOT_FOUND'], [5, false, 'E_BAD_REQUEST'], [6, false, 'E_UNKNOWN_OP'], [7, false, 'E_BAD_REQUEST'],
  ]);
  // the connection still works after all that
  s.ws.send('{"id":8,"op":"ping"}');
  await s.until(2 + garbage.length);
  assert.equal(s.frames.at(-1).ok, true);

  // an oversized frame closes that connection with 1009, and only that one
  const big = await rawSession(box.home);
  big.ws.sendRaw(Buffer.alloc(MAX_FRAME + 1024, 0x20));
  assert.equal((await big.closed).code, 1009);

  // a client that vanishes mid-frame, and raw non-websocket bytes
  const sock = net.connect(path.join(box.home, 'super.sock'));
  await new Promise((r) => sock.on('connect', r));
  sock.write('GET / HTTP/1.1\r\nHost: x\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Key: AAAAAAAAAAAAAAAAAAAAAA==\r\nSec-WebSocket-Version: 13\r\n\r\n\x81\xfe\x10');
  sock.destroy();
  const junk = net.connect(path.join(box.home, 'super.sock'));
  await new Promise((r) => junk.on('connect', r));
  junk.end('\x16\x03\x01 definitely not http\r\n\r\n');
  s.ws.close();

  // daemon and apps untouched
  const ls = await lsJson(box);
  assert.deepEqual(ls.apps[0].workers.map((w) => w.pid), pids);
  assert.match((await httpGet(port)).body, /app=web/);
  assert.equal((await box.cli(['ping'])).code, 0);
});

test('the CLI client reports an oversized request as E_FRAME_TOO_LARGE', async (t) => {
  const box = await sandbox(t);
  box.fixture('idle.js');
  const eco = box.write('eco.yml', 'apps:\n  - name: bg\n    script: idle.js\n    ready_on: spawn\n    min_uptime: 100ms\n');
  await box.start(eco);
  const client = await box.client();
  t.after(() => client.close());
  await assert.rejects(client.request('describe', { app: 'x'.repeat(MAX_FRAME) }), /** @param {any} err */ (err) => err.code === 'E_FRAME_TOO_LARGE' && err.exitStatus === 2);
  assert.equal((await box.cli(['ping'])).code, 0, 'daemon still answers');
});
