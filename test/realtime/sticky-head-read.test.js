// sticky: sid reads the first request's head of each connection in the daemon (up to 1 s),
// off the workers' turns (the connection leaves Node's round-robin while it is read):
// - a client that connects and sends nothing holds no worker's turn meanwhile. One worker,
//   so if it did every later connection would wait behind the silent one until its head's
//   deadline. Asserted as ordering: the other clients are served while the silent
//   connection is still open and no worker has it; afterwards it reaches the worker (by its
//   address) and is served when it finally speaks;
// - requests without a session (handshakes) still go to every worker in turn;
// - clients that reset their connection during the read leave the app serving (the read
//   fails and net closes the handle: nothing is handed on).
import test from 'node:test';
import assert from 'node:assert/strict';
import net from 'node:net';
import path from 'node:path';
import { freePort, FIXTURES } from '../helpers/harness.js';
import { fileSandbox, deleteAtEnd } from '../helpers/file-daemon.js';
import { eventually } from '../helpers/wait.js';

const APP = path.join(FIXTURES, 'apps', 'socketio.cjs');

/** One request on a new connection (Connection: close), from `socket` if given: the parsed /peers answer. */
function peers(port, socket = net.connect(port, '127.0.0.1')) {
  return new Promise((resolve, reject) => {
    let data = '';
    socket.setEncoding('latin1');
    socket.on('data', (d) => (data += d));
    socket.on('error', reject);
    socket.setTimeout(5000, () => socket.destroy(new Error('no answer within 5 s')));
    socket.on('close', () => {
      const body = data.slice(data.indexOf('\r\n\r\n') + 4);
      try {
        resolve(JSON.parse(body));
      } catch {
        reject(new Error(`no answer: ${JSON.stringify(data.slice(0, 200))}`));
      }
    });
    socket.write('GET /peers HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n');
  });
}

const box = await fileSandbox();

/** Starts app `name` with `instances` workers and sticky: sid on a free port: the port. */
async function startApp(t, name, instances) {
  const port = await freePort();
  deleteAtEnd(t, box, [name]);
  await box.start(box.write(`${name}.yml`, `apps:
  - name: ${name}
    script: ${APP}
    instances: ${instances}
    sticky: sid
    env:
      PORT: ${port}
`));
  return port;
}

test('sticky: sid: a client that sends nothing delays no other client; after the head deadline it reaches a worker and is served', async (t) => {
  const port = await startApp(t, 'silent', 1);

  const silent = net.connect(port, '127.0.0.1');
  t.after(() => silent.destroy());
  await new Promise((resolve, reject) => silent.once('connect', resolve).once('error', reject));
  let silentClosed = false;
  silent.once('close', () => (silentClosed = true));

  // Accepted before these (the kernel's queue is in order), its head read first.
  for (let i = 0; i < 5; i++) {
    const answer = await peers(port);
    assert.ok(!answer.peers.includes(silent.localPort), `request ${i} answered once the silent connection reached the worker: ${JSON.stringify(answer)}`);
  }
  assert.equal(silentClosed, false, 'the silent connection is still open');

  // Past the head's deadline the daemon hands it on (by address), to the app's own timeouts.
  await eventually(async () => (await peers(port)).peers.includes(silent.localPort), { timeout: 10000, what: 'the silent connection reached the worker' });
  const late = await peers(port, silent);
  assert.equal(typeof late.pid, 'number', 'the silent client is served once it speaks');
});

test('sticky: sid: requests without a session go to every worker in turn', async (t) => {
  const port = await startApp(t, 'turns', 4);
  const pids = [];
  for (let i = 0; i < 8; i++) pids.push((await peers(port)).pid);
  assert.equal(new Set(pids).size, 4, `8 requests one after the other, over 4 workers: ${pids}`);
});

test('sticky: sid: clients that reset their connection in the middle of a head leave every worker serving', async (t) => {
  const port = await startApp(t, 'resets', 2);
  const resets = Array.from({ length: 20 }, (_, i) => new Promise((resolve) => {
    const s = net.connect(port, '127.0.0.1', () => {
      s.write('GET /peers HTTP/1.1\r\nHost'); // no end of head: the daemon reads on
      setTimeout(() => s.resetAndDestroy(), 20 * (i % 3)); // resets spread over the read (a spread, not a wait)
    });
    s.on('error', () => {});
    s.on('close', resolve);
  }));
  await Promise.all(resets);
  const pids = [];
  for (let i = 0; i < 4; i++) pids.push((await peers(port)).pid);
  assert.equal(new Set(pids).size, 2, `answered by both workers: ${pids}`);
});
