// Who may see and act (lib/dashboard/access.js) and which actions are well formed
// (lib/dashboard/actions.js): pure checks, tested with hostile input directly.
import test from 'node:test';
import assert from 'node:assert/strict';
import os from 'node:os';
import { accessPolicy, hostAllowed, originAllowed, grants, bearer, subprotocolToken } from '../../lib/dashboard/access.js';
import { actionProblem } from '../../lib/dashboard/actions.js';

const TOKEN = 'a'.repeat(64);

test('loopback: its own origins only, seeing and acting with the token only (every local user reaches 127.0.0.1)', () => {
  const p = accessPolicy({ host: '127.0.0.1', port: 9615, tls: false });
  for (const h of ['127.0.0.1:9615', 'localhost:9615', '[::1]:9615', 'LOCALHOST:9615']) assert.ok(hostAllowed(p, h), h);
  // a DNS-rebinding page reaches 127.0.0.1 under its own name: refused
  for (const h of ['evil.example:9615', '127.0.0.1:9616', undefined, '']) assert.equal(hostAllowed(p, h), false, String(h));
  assert.ok(originAllowed(p, 'http://127.0.0.1:9615'));
  assert.ok(originAllowed(p, 'http://localhost:9615'));
  for (const o of ['https://127.0.0.1:9615', 'http://evil.example:9615', 'null', undefined, 'http://127.0.0.1:9615.evil.example']) assert.equal(originAllowed(p, o), false, String(o));
  assert.deepEqual(grants(p, null, TOKEN), { tokenOk: false, view: false, act: false });
  assert.deepEqual(grants(p, 'b'.repeat(64), TOKEN), { tokenOk: false, view: false, act: false });
  assert.deepEqual(grants(p, TOKEN, TOKEN), { tokenOk: true, view: true, act: true });
});

test('a wildcard address (0.0.0.0): the link printed (localhost) and the machine\'s own names are its Host, no other', () => {
  const p = accessPolicy({ host: '0.0.0.0', port: 9615, tls: true });
  for (const h of ['localhost:9615', '127.0.0.1:9615', `${os.hostname()}:9615`]) assert.ok(hostAllowed(p, h), h);
  assert.ok(originAllowed(p, 'https://localhost:9615'));
  assert.equal(hostAllowed(p, 'evil.example:9615'), false);
});

test('the token offered as a websocket subprotocol', () => {
  assert.equal(subprotocolToken(`superd, superd.${TOKEN}`), TOKEN);
  assert.equal(subprotocolToken('superd'), null);
  assert.equal(subprotocolToken(`superd.${TOKEN}x`), null);
  assert.equal(subprotocolToken(undefined), null);
});

test('another address: the token to see anything; read-only: no actions even with it', () => {
  const p = accessPolicy({ host: '10.0.0.5', port: 443, tls: true, origins: ['https://dash.example.com'] });
  assert.equal(p.loopback, false);
  assert.ok(hostAllowed(p, '10.0.0.5:443'));
  assert.ok(hostAllowed(p, 'dash.example.com'));
  assert.equal(hostAllowed(p, 'localhost:443'), false);
  assert.ok(originAllowed(p, 'https://10.0.0.5:443'));
  assert.ok(originAllowed(p, 'https://dash.example.com'));
  assert.equal(originAllowed(p, 'http://10.0.0.5:443'), false, 'the scheme counts');
  assert.deepEqual(grants(p, null, TOKEN), { tokenOk: false, view: false, act: false });
  assert.deepEqual(grants(p, TOKEN, TOKEN), { tokenOk: true, view: true, act: true });
  const ro = accessPolicy({ host: '127.0.0.1', port: 1, tls: false, readOnly: true });
  assert.deepEqual(grants(ro, TOKEN, TOKEN), { tokenOk: true, view: true, act: false });
  assert.equal(bearer(`Bearer ${TOKEN}`), TOKEN);
  assert.equal(bearer(`Bearer ${TOKEN}x`), null);
  assert.equal(bearer(undefined), null);
});

test('an action is checked before anything is sent to a daemon', () => {
  const ok = { id: 1, action: 'reload', host: 'local', app: '<img src=x onerror=alert(1)>' };
  assert.equal(actionProblem(ok, ['local']), null);
  assert.match(actionProblem({ ...ok, id: 'x' }, ['local']), /integer id/);
  assert.match(actionProblem({ ...ok, action: 'kill' }, ['local']), /unknown action/);
  assert.match(actionProblem({ ...ok, action: '__proto__' }, ['local']), /unknown action/);
  assert.match(actionProblem({ ...ok, host: 'other' }, ['local']), /unknown host/);
  assert.match(actionProblem({ ...ok, app: 'a/b' }, ['local']), /app name/);
  assert.match(actionProblem({ ...ok, app: 'x'.repeat(65) }, ['local']), /app name/);
  assert.match(actionProblem({ ...ok, app: 'a\nb' }, ['local']), /app name/);
  assert.match(actionProblem({ ...ok, action: 'scale', count: '1e9' }, ['local']), /bad arguments/);
  assert.equal(actionProblem({ ...ok, action: 'scale', count: '+2' }, ['local']), null);
  assert.match(actionProblem({ ...ok, action: 'profile' }, ['local']), /bad arguments/);
  assert.equal(actionProblem({ ...ok, action: 'heap', slot: 0 }, ['local']), null);
});
