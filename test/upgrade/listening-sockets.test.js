// The /proc reading behind `super upgrade` and LISTEN_FDS: which descriptors are listening
// TCP sockets and on what address, in one spelling that a worker's listen host compares with.
import test from 'node:test';
import assert from 'node:assert/strict';
import net from 'node:net';
import { listeningSockets, normalizeAddress } from '../../lib/master/upgrade/listening-sockets.js';

test('normalizeAddress: one spelling per address', () => {
  assert.equal(normalizeAddress(null), null);
  assert.equal(normalizeAddress(''), null);
  assert.equal(normalizeAddress('127.0.0.1'), '127.0.0.1');
  assert.equal(normalizeAddress('::'), '::');
  assert.equal(normalizeAddress('0:0:0:0:0:0:0:0'), '::');
  assert.equal(normalizeAddress('::1'), '::1');
  assert.equal(normalizeAddress('::ffff:127.0.0.1'), '127.0.0.1');
  assert.equal(normalizeAddress('0:0:0:0:0:ffff:7f00:1'), '127.0.0.1');
  assert.equal(normalizeAddress('FE80::0001'), 'fe80:0:0:0:0:0:0:1');
});

/** @param {net.Server} s  a listening TCP server */
const addressOf = (s) => /** @type {net.AddressInfo} */ (s.address());

test('listeningSockets: this process\'s listening TCP sockets with their address and port, nothing else', async (t) => {
  const servers = [net.createServer(), net.createServer(), net.createServer()];
  t.after(() => servers.forEach((s) => s.close()));
  await new Promise((r) => servers[0].listen(0, '127.0.0.1', () => r()));
  await new Promise((r) => servers[1].listen(0, '::', () => r()));
  await new Promise((r) => servers[2].listen(0, '::1', () => r()));
  const client = net.connect(addressOf(servers[0]).port, '127.0.0.1'); // a connected socket is not listed
  await new Promise((r) => client.once('connect', r));
  t.after(() => client.destroy());
  const found = listeningSockets();
  const want = servers.map((s) => ({ fd: /** @type {any} libuv's handle: no public API gives a server's fd */ (s)._handle.fd, address: normalizeAddress(addressOf(s).address), port: addressOf(s).port }));
  assert.deepEqual(found.map(({ fd, address, port }) => ({ fd, address, port })).sort((a, b) => a.fd - b.fd), want.sort((a, b) => a.fd - b.fd));
  assert.ok(found.every((s) => Number.isInteger(s.ino) && s.ino > 0));
  assert.deepEqual(listeningSockets([want[0].fd]).map((s) => s.port), [want[0].port], 'only the descriptors asked about');
});
