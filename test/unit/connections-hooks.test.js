// The agent's hooks on a server's 'upgrade' and 'connect' events (lib/worker/connections.cjs)
// are there only while the app listens to them: a server whose app stopped listening to
// 'connect' refuses a CONNECT again, as Node does with no listener, instead of leaving it
// unanswered. A real http server and real sockets, in this process.
import test from 'node:test';
import assert from 'node:assert/strict';
import http from 'node:http';
import net from 'node:net';
import { createRequire } from 'node:module';

const connections = createRequire(import.meta.url)('../../lib/worker/connections.cjs');

/** Sends a CONNECT to `port`; resolves 'answered' (bytes came back) or 'closed' (Node destroyed the socket), within 5 s. */
function connectRequest(port) {
  return new Promise((resolve) => {
    const socket = net.connect(port, '127.0.0.1', () => socket.write('CONNECT example.com:443 HTTP/1.1\r\nHost: example.com:443\r\n\r\n'));
    const timer = setTimeout(() => { socket.destroy(); resolve('unanswered'); }, 5000);
    socket.once('data', () => { clearTimeout(timer); socket.destroy(); resolve('answered'); });
    socket.once('close', () => { clearTimeout(timer); resolve('closed'); });
    socket.on('error', () => {});
  });
}

test('the hook on connect follows the app\'s listeners: added with the first, gone with the last', async (t) => {
  const server = http.createServer((req, res) => res.end());
  connections.watch(server); // as drain.cjs does at listen()
  await new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve(undefined)));
  t.after(() => { server.closeAllConnections(); server.close(); });
  const port = /** @type {import('node:net').AddressInfo} */ (server.address()).port;
  const tunnel = (req, socket) => socket.end('HTTP/1.1 200 Connection Established\r\n\r\n');
  assert.equal(server.listenerCount('connect'), 0);
  server.on('connect', tunnel);
  assert.equal(server.listenerCount('connect'), 2, 'ours ahead of the app\'s');
  assert.equal(await connectRequest(port), 'answered');
  server.off('connect', tunnel);
  assert.equal(server.listenerCount('connect'), 0, 'ours gone with the app\'s');
  assert.equal(await connectRequest(port), 'closed', 'Node refuses a CONNECT nobody listens to');
  server.on('connect', tunnel);
  assert.equal(server.listenerCount('connect'), 2, 'back with the app\'s next one');
  server.removeAllListeners('connect');
  server.on('connect', tunnel);
  assert.equal(server.listenerCount('connect'), 2, 'and after removeAllListeners()');
  assert.equal(await connectRequest(port), 'answered');
});
