// The open connections of a worker: counted in its report (ls --json: metrics.connections,
// metrics.websockets), and closed cleanly by the agent before drain_timeout when the worker
// is retired (lib/worker/connections.cjs): websockets with a close frame 1001, every other
// kind (idle keep-alive, long poll, another upgrade, a CONNECT tunnel, plain TCP) with a FIN.
// The count is net.Server's own and an http server's sockets are found in Node's own list
// when the drain needs them: a kind missed there would hold the drain to its deadline, and
// the app's onShutdown hook (which runs only once every connection has ended) would not run.
import test from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { freePort, lsJson, FIXTURES } from '../helpers/harness.js';
import { fileSandbox, deleteAtEnd } from '../helpers/file-daemon.js';
import { eventually } from '../helpers/wait.js';

const box = await fileSandbox();
const CLOSE_1001 = Buffer.from([0x88, 12, 0x03, 0xe9, ...Buffer.from('going away')]);

const get = (url) => `GET ${url} HTTP/1.1\r\nHost: x\r\n\r\n`;

/** A raw client: sends `head` (if any), resolves once `answered` (a regexp) is read; then records how it ended. */
async function connect(port, head, answered) {
  const socket = net.connect(port, '127.0.0.1');
  const c = { socket, data: Buffer.alloc(0), ended: false, error: null, closed: new Promise((resolve) => socket.on('close', resolve)) };
  socket.on('data', (d) => { c.data = Buffer.concat([c.data, d]); });
  socket.on('end', () => { c.ended = true; });
  socket.on('error', (err) => { c.error = /** @type {NodeJS.ErrnoException} */ (err).code; });
  await new Promise((resolve, reject) => { socket.once('connect', resolve); socket.once('error', reject); });
  if (head) socket.write(head);
  if (answered) await eventually(() => answered.test(c.data.toString('latin1')), { timeout: 10000, what: `an answer to ${head.split('\r\n')[0]}` });
  return c;
}

test('a worker counts its open connections and websockets, and closes every one cleanly before drain_timeout', async (t) => {
  const [port, tcpPort] = [await freePort(), await freePort()];
  const markFile = path.join(box.dir, 'open.marks');
  fs.writeFileSync(markFile, '');
  deleteAtEnd(t, box, ['open']);
  // open-connections imports superd/worker, which resolves from inside this package: run it in place.
  await box.start(box.write('open.yml', `
apps:
  - name: open
    script: ${path.join(FIXTURES, 'apps', 'open-connections.js')}
    drain_timeout: 3s
    metrics_interval: 100ms
    env: { PORT: ${port}, TCP_PORT: ${tcpPort}, MARK_FILE: ${JSON.stringify(markFile)} }
`));
  const upgrade = (proto) => `GET /ws HTTP/1.1\r\nHost: x\r\nConnection: Upgrade\r\nUpgrade: ${proto}\r\nSec-WebSocket-Version: 13\r\nSec-WebSocket-Key: ${Buffer.from('0123456789abcdef').toString('base64')}\r\n\r\n`;
  const c = {
    idle: await connect(port, get('/'), /ok\n$/), // idle keep-alives
    idle2: await connect(port, get('/'), /ok\n$/),
    leaves: await connect(port, get('/'), /ok\n$/), // closed below
    hold: await connect(port, get('/hold'), null), // a request never answered
    websocket: await connect(port, upgrade('websocket'), /\r\n\r\n$/),
    websocketLeaves: await connect(port, upgrade('WebSocket'), /\r\n\r\n$/), // closed below
    other: await connect(port, upgrade('other'), /\r\n\r\n$/), // upgraded, not a websocket
    tunnel: await connect(port, 'CONNECT example.com:443 HTTP/1.1\r\nHost: example.com:443\r\n\r\n', /\r\n\r\n$/),
    tcp: await connect(tcpPort, '', null),
    tcp2: await connect(tcpPort, '', null),
  };
  t.after(() => Object.values(c).forEach((client) => client.socket.destroy()));
  let counted = null;
  const countIs = (open, websockets) => async () => {
    const w = (await lsJson(box)).apps.find((a) => a.name === 'open').workers[0];
    counted = [w.metrics?.connections, w.metrics?.websockets];
    return counted[0] === open && counted[1] === websockets;
  };
  await eventually(countIs(10, 2), { timeout: 10000, what: '10 open connections, 2 websockets', last: () => JSON.stringify(counted) });
  // A connection and a websocket close: the counts follow.
  c.leaves.socket.end();
  c.websocketLeaves.socket.end();
  await eventually(countIs(8, 1), { timeout: 10000, what: '8 open connections, 1 websocket', last: () => JSON.stringify(counted) });

  const stop = await box.cli(['stop', 'open']);
  assert.equal(stop.code, 0, stop.stderr);
  const open = Object.entries(c).filter(([name]) => !/Leaves$|^leaves$/.test(name));
  await Promise.all(open.map(([, client]) => client.closed));
  assert.deepEqual(open.map(([name, client]) => [name, client.ended, client.error]), open.map(([name]) => [name, true, null]), 'each connection ended with a FIN, none reset');
  assert.ok(c.websocket.data.subarray(-CLOSE_1001.length).equals(CLOSE_1001), 'the websocket got a close frame 1001 "going away"');
  assert.match(fs.readFileSync(markFile, 'utf8'), /^hook \d+$/m, 'every connection closed before drain_timeout: the drain ran the app\'s hooks');
});

// Autoscale's `inflight` (lib/worker/metrics.cjs): a request leaves the count at its finish,
// or at its response's 'close' when its client left before the answer.
test('requests in flight: counted while unanswered, not once answered, nor once their client left', async (t) => {
  const [port, tcpPort] = [await freePort(), await freePort()];
  deleteAtEnd(t, box, ['inflight']);
  await box.start(box.write('inflight.yml', `
apps:
  - name: inflight
    metrics_interval: 100ms
    script: ${path.join(FIXTURES, 'apps', 'open-connections.js')}
    env: { PORT: ${port}, TCP_PORT: ${tcpPort}, MARK_FILE: ${JSON.stringify(path.join(box.dir, 'inflight.marks'))} }
`));
  // Each ls asks the worker for a report: http_inflight is the average since the one before.
  let seen = null;
  const inflightIs = (n) => async () => {
    seen = (await lsJson(box)).apps.find((a) => a.name === 'inflight').workers[0].metrics?.http_inflight;
    return seen === n;
  };
  const answered = [];
  for (let i = 0; i < 3; i++) answered.push(await connect(port, get('/'), /ok\n$/));
  const held = [await connect(port, get('/hold'), null), await connect(port, get('/hold'), null)];
  t.after(() => [...answered, ...held].forEach((c) => c.socket.destroy()));
  await eventually(inflightIs(2), { timeout: 10000, what: '2 requests in flight', last: () => JSON.stringify(seen) });
  for (const c of held) c.socket.destroy();
  await eventually(inflightIs(0), { timeout: 10000, what: 'no request in flight once their clients left', last: () => JSON.stringify(seen) });
  for (const c of answered) c.socket.destroy(); // before the app's delete, which would wait for them
});
