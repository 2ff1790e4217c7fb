// The sticky router's pure parts: rendezvous hashing moves only the share of a worker that
// goes or comes (the rest keep their worker), and the session token of a request head.
import test from 'node:test';
import assert from 'node:assert/strict';
import { rendezvous, sessionToken } from '../../lib/master/process/cluster-internals/sticky-router.js';

const workers = (slots) => slots.map((slot) => ({ slot, id: 100 + slot }));
const clients = Array.from({ length: 2000 }, (_, i) => `10.0.${i >> 8}.${i & 255}`);
const assign = (list) => new Map(clients.map((c) => [c, rendezvous(c, list).slot]));

test('rendezvous: every worker gets a share; removing one moves only its clients, adding it back takes only them back', () => {
  const four = assign(workers([0, 1, 2, 3]));
  const shares = [0, 1, 2, 3].map((s) => [...four.values()].filter((v) => v === s).length);
  for (const n of shares) assert.ok(n > 300 && n < 700, `a fair share: ${shares}`);
  const three = assign(workers([0, 1, 3]));
  for (const c of clients) {
    if (four.get(c) !== 2) assert.equal(three.get(c), four.get(c), 'a client of a worker that stays keeps it');
    else assert.notEqual(three.get(c), 2);
  }
  assert.deepEqual(assign(workers([0, 1, 2, 3])), four, 'stable: the same slots give the same map');
});

test('rendezvous: two workers of one slot (a reload) are one share, and the newest takes it', () => {
  const list = [...workers([0, 1]), { slot: 1, id: 200 }];
  for (const c of clients.slice(0, 200)) {
    const w = rendezvous(c, list);
    if (w.slot === 1) assert.equal(w.id, 200);
  }
  assert.equal(rendezvous('x', []), null);
});

test('sessionToken: sid= of the request line, or the named cookie; nothing else', () => {
  const head = (line, ...headers) => Buffer.from(`${line}\r\n${headers.map((h) => `${h}\r\n`).join('')}\r\n`);
  const sid = { by: 'sid', cookie: null };
  const cookie = { by: 'cookie', cookie: 'io' };
  assert.equal(sessionToken(head('GET /socket.io/?EIO=4&transport=polling&t=x&sid=aB3-_x9ZZqzLk0PMAAAB HTTP/1.1'), sid), 'aB3-_x9ZZqzLk0PMAAAB');
  assert.equal(sessionToken(head('POST /socket.io/?sid=abc&EIO=4 HTTP/1.1'), sid), 'abc');
  assert.equal(sessionToken(head('GET /socket.io/?EIO=4&transport=polling HTTP/1.1', 'Referer: /?sid=no'), sid), null, 'a handshake has none');
  assert.equal(sessionToken(head('GET /?xsid=no HTTP/1.1'), sid), null);
  assert.equal(sessionToken(head('GET / HTTP/1.1', 'Host: a', 'cookie: a=1; io=S1d ; b=2'), cookie), 'S1d');
  assert.equal(sessionToken(head('GET / HTTP/1.1', 'Cookie: iox=1'), cookie), null);
  assert.equal(sessionToken(head('GET /?sid=abc HTTP/1.1'), cookie), null, 'by cookie reads no URL');
});
