// sticky: ip through a scale-up (`super scale app +1`, 2 to 3 workers) with socket.io clients
// connected, each from its own loopback address (127.0.0.x: all of 127/8 is loopback on
// Linux). Rendezvous hashing moves only the addresses the new slots win: a client already
// connected keeps its connection and its worker; a new connection from a known address goes
// to that address's old worker or to a new one, never to the other old worker; new clients
// reach the new workers.
import test from 'node:test';
import assert from 'node:assert/strict';
import http from 'node:http';
import path from 'node:path';
import { createRequire } from 'node:module';
import { freePort, lsJson, FIXTURES, sandbox } from '../helpers/harness.js';

const { io } = createRequire(import.meta.url)('socket.io-client');
const APP = path.join(FIXTURES, 'apps', 'socketio.cjs');
const ADDRESSES = 16;

/** A socket.io client on the default transports from 127.0.0.<host>: {socket, pid()} once connected. */
async function connect(t, port, host) {
  const agent = new http.Agent({ localAddress: `127.0.0.${host}` });
  const socket = io(`http://127.0.0.1:${port}`, { agent, reconnection: false, forceNew: true, timeout: 5000 });
  t.after(() => {
    socket.close();
    agent.destroy();
  });
  await new Promise((resolve, reject) => {
    socket.once('connect', resolve);
    socket.once('connect_error', reject);
  });
  return { socket, pid: () => socket.timeout(4000).emitWithAck('whoami', 0).then((r) => r.pid) };
}

const pidsOf = async (box) => (await lsJson(box)).apps.find((a) => a.name === 'grow').workers.map((w) => w.pid);

test('sticky: ip: on a scale-up connected clients keep their worker, only addresses the new worker wins move, new clients reach it', async (t) => {
  const box = await sandbox(t);
  const port = await freePort();
  const start = await box.cli(['start', box.write('grow.yml', `apps:
  - name: grow
    script: ${APP}
    instances: 2
    sticky: ip
    env:
      PORT: ${port}
`)]);
  assert.equal(start.code, 0, start.stderr);
  const old = await pidsOf(box);
  assert.equal(old.length, 2);

  const hosts = Array.from({ length: ADDRESSES }, (_, i) => 10 + i);
  const first = await Promise.all(hosts.map((h) => connect(t, port, h)));
  const before = await Promise.all(first.map((c) => c.pid()));
  const dropped = new Set();
  first.forEach((c, i) => c.socket.on('disconnect', () => dropped.add(i)));

  const scale = await box.cli(['scale', 'grow', '+1']);
  assert.equal(scale.code, 0, scale.stderr);
  const now = await pidsOf(box);
  const added = now.filter((p) => !old.includes(p));
  assert.equal(added.length, 1, `one new worker: ${now}`);

  // Connected clients: untouched.
  const after = await Promise.all(first.map((c) => c.pid()));
  assert.deepEqual([...dropped], [], 'no connected client was dropped');
  assert.deepEqual(after, before, 'each connected client kept its worker');

  // New connections from the same addresses: the old worker, or a new one (rendezvous).
  const again = await Promise.all(hosts.map((h) => connect(t, port, h).then((c) => c.pid())));
  again.forEach((pid, i) => assert.ok(pid === before[i] || added.includes(pid), `127.0.0.${hosts[i]}: ${before[i]} then ${pid}, new workers ${added}`));
  const moved = again.filter((pid, i) => pid !== before[i]).length;
  assert.ok(moved > 0 && moved < ADDRESSES, `some addresses, not all, moved to the new workers: ${moved} of ${ADDRESSES}`);

  // New clients: spread over all three, the new worker included.
  const fresh = await Promise.all(Array.from({ length: ADDRESSES }, (_, i) => connect(t, port, 100 + i).then((c) => c.pid())));
  for (const pid of added) assert.ok(fresh.includes(pid) || again.includes(pid), `new worker ${pid} got clients`);
});
