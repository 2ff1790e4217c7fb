// The pure pieces of the TCP control listener's gate: the failed-auth limiter, the token
// file and its comparison, and which addresses count as loopback.
import test from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { AuthLimiter } from '../../lib/ipc/auth-limiter.js';
import { ensureToken, readToken, rotateToken, tokenMatches } from '../../lib/ipc/token.js';
import { isLoopbackHost } from '../../lib/config/listen-address.js';
import { controlListenProblem } from '../../lib/config/control-settings.js';

test('limiter: locked after maxFailures within the window, for lockMs, per address', () => {
  const l = new AuthLimiter({ maxFailures: 3, windowMs: 1000, lockMs: 5000 });
  assert.equal(l.fail('a', 0), false);
  assert.equal(l.fail('a', 10), false);
  assert.equal(l.locked('a', 20).locked, false);
  assert.equal(l.fail('a', 30), true, 'the third failure locks');
  const first = l.locked('a', 40);
  assert.deepEqual(first, { locked: true, first: true, retryAfterMs: 4990 });
  assert.equal(l.locked('a', 50).first, false, 'told once per lockout');
  assert.equal(l.locked('b', 50).locked, false, 'other addresses are free');
  assert.equal(l.locked('a', 5030).locked, false, 'the lockout ends');
  assert.equal(l.fail('a', 5040), false, 'and the count starts again');
});

test('limiter: failures older than the window do not add up; a success forgets', () => {
  const l = new AuthLimiter({ maxFailures: 3, windowMs: 1000, lockMs: 5000 });
  l.fail('a', 0);
  l.fail('a', 500);
  assert.equal(l.fail('a', 1600), false, 'a new window');
  l.fail('a', 1700);
  l.succeed('a');
  assert.equal(l.fail('a', 1800), false);
  assert.equal(l.size, 1);
});

test('limiter: memory is bounded; the oldest address goes first', () => {
  const l = new AuthLimiter({ maxFailures: 2, windowMs: 1000, lockMs: 5000, maxEntries: 100 });
  l.fail('first', 0);
  l.fail('first', 0);
  for (let i = 0; i < 10000; i++) l.fail(`x${i}`, 1);
  assert.equal(l.size, 100);
  assert.equal(l.locked('first', 2).locked, false, 'evicted');
  assert.equal(l.entries.has('x9999'), true);
});

test('token file: created 0600 with 64 hex digits, kept, rotated by rename, malformed refused', async (t) => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'sd-tok-'));
  t.after(() => fs.rmSync(dir, { recursive: true, force: true }));
  const file = path.join(dir, 'token');
  assert.equal(await readToken(file), null);
  const a = await ensureToken(file);
  assert.match(a, /^[0-9a-f]{64}$/);
  assert.equal(fs.statSync(file).mode & 0o777, 0o600);
  assert.equal(await ensureToken(file), a, 'the existing token is kept');
  // Many creators at once (an early one's file was once seen empty by a later one): all agree.
  for (let round = 0; round < 20; round++) {
    const all = await Promise.all(Array.from({ length: 8 }, () => ensureToken(path.join(dir, 't2'))));
    assert.equal(new Set(all).size, 1, 'creators at once agree');
    fs.rmSync(path.join(dir, 't2'));
  }
  await ensureToken(path.join(dir, 't2'));
  const b = await rotateToken(file);
  assert.notEqual(b, a);
  assert.equal(await readToken(file), b);
  assert.equal(fs.statSync(file).mode & 0o777, 0o600);
  assert.deepEqual(fs.readdirSync(dir).sort(), ['t2', 'token'], 'no temporary file left');
  fs.writeFileSync(file, 'not a token\n');
  await assert.rejects(readToken(file), /** @param {any} err */ (err) => err.code === 'EBADTOKEN');
});

test('tokenMatches: exact, any length, non-strings refused', () => {
  const tok = 'a1'.repeat(32);
  assert.equal(tokenMatches(tok, tok), true);
  assert.equal(tokenMatches(tok.toUpperCase(), tok), false);
  assert.equal(tokenMatches(`${tok}0`, tok), false);
  assert.equal(tokenMatches('', tok), false);
  assert.equal(tokenMatches('x'.repeat(100000), tok), false);
  assert.equal(tokenMatches(undefined, tok), false);
  assert.equal(tokenMatches(tok, null), false);
});

test('loopback addresses, and the tls rule of control.listen', () => {
  for (const h of ['127.0.0.1', '127.1.2.3', '::1', '0:0:0:0:0:0:0:1', '::ffff:127.0.0.1', 'localhost', 'LOCALHOST']) assert.equal(isLoopbackHost(h), true, h);
  for (const h of ['0.0.0.0', '::', '10.0.0.1', '192.168.1.1', 'example.com', '128.0.0.1', '::2', 'localhost.example.com']) assert.equal(isLoopbackHost(h), false, h);
  assert.equal(controlListenProblem('127.0.0.1:9615', null), null);
  assert.equal(controlListenProblem('[::1]:9615', null), null);
  assert.match(controlListenProblem('0.0.0.0:9615', null), /control\.tls/);
  assert.equal(controlListenProblem('0.0.0.0:9615', { cert: '/c', key: '/k' }), null);
  assert.equal(controlListenProblem(undefined, null), null);
});
