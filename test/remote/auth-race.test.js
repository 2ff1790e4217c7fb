// The failed-auth limiter of the TCP control listener holds against parallel guesses:
// wrong tokens sent all at once from one address get at most MAX_FAILURES 401s, the
// rest 429. (The lockout used to be checked before the token file was read and the
// failure counted after, so every request of a burst passed the check.)
import test from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { startRemoteListener } from '../../lib/ipc/remote-listener.js';
import { MAX_FAILURES } from '../../lib/ipc/auth-limiter.js';
import { freePort } from '../helpers/harness.js';

const BURST = 20;

/** `count` upgrade requests, each on its own connection, all written in the same tick. */
async function burst(port, count, token) {
  const sockets = await Promise.all(Array.from({ length: count }, () => new Promise((resolve, reject) => {
    const s = net.connect(port, '127.0.0.1', () => resolve(s));
    s.once('error', reject);
  })));
  const statuses = sockets.map((s) => new Promise((resolve, reject) => {
    let head = '';
    s.setEncoding('utf8');
    s.on('data', (d) => (head += d));
    s.on('end', () => resolve(Number(/^HTTP\/1\.1 (\d{3})/.exec(head)?.[1])));
    s.on('error', reject);
  }));
  const request = 'GET / HTTP/1.1\r\nhost: 127.0.0.1\r\nconnection: Upgrade\r\nupgrade: websocket\r\n'
    + `sec-websocket-version: 13\r\nsec-websocket-key: dGhlIHNhbXBsZSBub25jZQ==\r\nauthorization: Bearer ${token}\r\n\r\n`;
  for (const s of sockets) s.write(request);
  return Promise.all(statuses);
}

test(`${BURST} parallel wrong-token upgrades: at most ${MAX_FAILURES} get 401, the rest 429`, async (t) => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'sd-auth-'));
  t.after(() => fs.rmSync(dir, { recursive: true, force: true }));
  const port = await freePort();
  const accepted = [];
  const warnings = [];
  const listener = await startRemoteListener({
    listen: `127.0.0.1:${port}`,
    tls: null,
    origins: [],
    tokenFile: path.join(dir, 'token'),
    accept: (req, socket) => {
      accepted.push(req);
      socket.destroy();
    },
    log: { debug() {}, info() {}, error() {}, fatal() {}, flush() {}, warn: (o, msg) => warnings.push(msg) },
  });
  t.after(() => listener.close());

  const statuses = await burst(port, BURST, 'f'.repeat(64));
  const count = (s) => statuses.filter((x) => x === s).length;
  assert.equal(count(401) + count(429), BURST, `only 401 and 429: ${statuses}`);
  assert.ok(count(401) <= MAX_FAILURES, `${count(401)} guesses were checked against the token (limit ${MAX_FAILURES}): ${statuses}`);
  assert.equal(accepted.length, 0);
  assert.equal(warnings.filter((m) => /locked out/.test(m)).length, 1, 'the lockout is logged once');
  // the lockout holds for the right token too: a guesser learns nothing while locked out
  const right = fs.readFileSync(path.join(dir, 'token'), 'utf8').trim();
  assert.deepEqual(await burst(port, 1, right), [429]);
});
