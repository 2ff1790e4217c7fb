import test from 'node:test';
import assert from 'node:assert/strict';
import { parseRequest, OPS } from '../../lib/ipc/protocol.js';

const err = (text) => parseRequest(text).error;

test('a well-formed request passes with its args', () => {
  assert.deepEqual(parseRequest('{"id":1,"op":"stop","args":{"target":"api"}}'), { id: 1, op: 'stop', args: { target: 'api' } });
  assert.deepEqual(parseRequest('{"id":"a","op":"ls"}'), { id: 'a', op: 'ls', args: {} });
});

test('garbage gets coded errors', () => {
  assert.deepEqual(err('not json'), { code: 'E_BAD_REQUEST', message: 'frame is not valid JSON' });
  assert.equal(err('[1,2]').code, 'E_BAD_REQUEST');
  assert.equal(err('null').code, 'E_BAD_REQUEST');
  assert.equal(err('{"op":"ls"}').code, 'E_BAD_REQUEST');
  assert.equal(err('{"id":{},"op":"ls"}').code, 'E_BAD_REQUEST');
  assert.equal(err('{"id":1}').code, 'E_BAD_REQUEST');
  assert.equal(err('{"id":1,"op":"rm -rf"}').code, 'E_UNKNOWN_OP');
  assert.equal(err('{"id":1,"op":"__proto__"}').code, 'E_UNKNOWN_OP');
  assert.equal(err('{"id":1,"op":"toString"}').code, 'E_UNKNOWN_OP');
  assert.equal(err('{"id":1,"op":"ls","args":[]}').code, 'E_BAD_REQUEST');
  assert.match(err('{"id":1,"op":"stop","args":{}}').message, /argument "target" is required/);
  assert.match(err('{"id":1,"op":"stop","args":{"target":5}}').message, /"target" must be an app name/);
  assert.match(err('{"id":1,"op":"stop","args":{"target":"a","x":1}}').message, /unknown argument "x"/);
  assert.match(err('{"id":1,"op":"scale","args":{"app":"a","count":"lots"}}').message, /count like/);
  assert.match(err('{"id":1,"op":"subscribe","args":{"topics":["secrets"]}}').message, /topics from: worker/);
  assert.match(err('{"id":1,"op":"start","args":{"file":"/x","clientEnv":{"A":1}}}').message, /clientEnv/);
});

test('the id of a bad request is echoed when usable', () => {
  assert.equal(parseRequest('{"id":9,"op":"nope"}').id, 9);
  assert.equal(parseRequest('{"id":[9],"op":"nope"}').id, null);
});

test('every op has an argument spec', () => {
  for (const [op, spec] of Object.entries(OPS)) assert.equal(typeof spec, 'object', op);
});

test('targets: a name or a bounded list; the new ops check their arguments', () => {
  assert.deepEqual(parseRequest('{"id":1,"op":"stop","args":{"target":["api","0"]}}').args, { target: ['api', '0'] });
  assert.match(err('{"id":1,"op":"stop","args":{"target":[]}}').message, /"target" must be/);
  assert.match(err(JSON.stringify({ id: 1, op: 'restart', args: { target: Array(101).fill('a') } })).message, /"target" must be/);
  assert.match(err('{"id":1,"op":"start-script","args":{"script":"app.js","cwd":"relative"}}').message, /absolute directory/);
  assert.match(err('{"id":1,"op":"start-script","args":{"script":"app.js","cwd":"/x","instances":"1025"}}').message, /"instances" must be N \(up to 1024\)/);
  assert.equal(parseRequest('{"id":1,"op":"start-script","args":{"script":"app.js","cwd":"/x","instances":"-1"}}').op, 'start-script');
  assert.match(err('{"id":1,"op":"signal","args":{"target":"api","signal":"KILL; rm"}}').message, /signal name/);
  assert.match(err('{"id":1,"op":"signal","args":{"target":"api","signal":"SIGHUP","slot":-1}}').message, /slot number/);
  assert.match(err('{"id":1,"op":"reload","args":{"target":"api","updateEnv":{"A":1}}}').message, /updateEnv/);
  assert.match(err('{"id":1,"op":"env","args":{}}').message, /"app" is required/);
});
