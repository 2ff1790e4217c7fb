// The daemon <-> agent protocol (lib/ipc/agent-protocol.cjs) and its two dispatchers: the
// daemon's (lib/master/process/agent-channel.js) and the agent's (lib/worker/daemon-channel.cjs).
import test from 'node:test';
import assert from 'node:assert/strict';
import path from 'node:path';
import { fork } from 'node:child_process';
import { EventEmitter, once } from 'node:events';
import protocol from '../../lib/ipc/agent-protocol.cjs';
import { listenToAgent, routeTable, tellAgent } from '../../lib/master/process/agent-channel.js';
import { FIXTURES } from '../helpers/harness.js';

const { FROM_AGENT, TO_AGENT, PM2, GUARDS, envelope, agentMessageName, daemonMessageName, MAX_HOOK_ERRORS, MAX_HOOK_ERROR_CHARS, MAX_RESOURCE_TYPES } = protocol;
const agentNames = Object.values(FROM_AGENT);
const daemonNames = Object.values(TO_AGENT);

/** A daemon-side dispatcher on an emitter, recording what each handler got. */
function recorder() {
  const source = new EventEmitter();
  const calls = [];
  const handlers = Object.fromEntries(agentNames.map((name) => [name, (fields) => calls.push([name, fields])]));
  listenToAgent(source, handlers);
  return { calls, send: (m) => source.emit('message', m) };
}

// One valid message per agent name, as the agent sends it.
const valid = {
  [FROM_AGENT.READY]: envelope(FROM_AGENT.READY),
  [FROM_AGENT.DRAINED]: envelope(FROM_AGENT.DRAINED, { hookErrors: ['Error: db'] }),
  [FROM_AGENT.METRICS]: envelope(FROM_AGENT.METRICS, { data: { rss: 1 } }),
  [FROM_AGENT.LOG_ERROR]: envelope(FROM_AGENT.LOG_ERROR, { stream: 'err', code: 'ENOSPC' }),
  [FROM_AGENT.LOG_RESUMED]: envelope(FROM_AGENT.LOG_RESUMED, { stream: 'out', code: 'EIO', dropped: 3 }),
  [FROM_AGENT.LOGS_REOPENED]: envelope(FROM_AGENT.LOGS_REOPENED),
  [FROM_AGENT.DIAGNOSTIC_DONE]: envelope(FROM_AGENT.DIAGNOSTIC_DONE, { id: 4, ok: true, bytes: 10, path: '/etc/passwd' }),
  [FROM_AGENT.STICKY_SESSION]: envelope(FROM_AGENT.STICKY_SESSION, { sid: 'aB3-_x9ZZqzLk0PMAAAB', extra: 1 }),
  [FROM_AGENT.LISTEN]: envelope(FROM_AGENT.LISTEN, { id: 5, address: null, port: 3000, addressType: 4, flags: 0, fd: 3 }),
  [FROM_AGENT.LISTEN_CLOSED]: envelope(FROM_AGENT.LISTEN_CLOSED, { id: 5 }),
};

test('names: one frozen table each way, distinct, "super:" and never NODE_ (Node routes those to internalMessage)', () => {
  assert.ok(Object.isFrozen(FROM_AGENT) && Object.isFrozen(TO_AGENT) && Object.isFrozen(PM2) && Object.isFrozen(GUARDS));
  const names = [...agentNames, ...daemonNames];
  assert.equal(names.length, 24);
  assert.equal(new Set(names).size, names.length, 'distinct');
  for (const name of names) {
    assert.match(name, /^super:[a-z-]+$/);
    assert.ok(!envelope(name).cmd.startsWith('NODE_'));
  }
  assert.deepEqual(Object.keys(GUARDS).sort(), [...agentNames].sort(), 'a guard per agent message, no other');
  assert.ok(Object.values(GUARDS).every((g) => typeof g === 'function'));
  assert.deepEqual(envelope(FROM_AGENT.METRICS, { data: 1 }), { cmd: 'super:metrics', data: 1 });
});

test('the daemon routes every agent message to its one handler, with the guarded fields', () => {
  const { calls, send } = recorder();
  for (const name of agentNames) send(valid[name]);
  send(PM2.READY);
  assert.deepEqual(calls.map(([name]) => name), [...agentNames, FROM_AGENT.READY]);
  const fields = Object.fromEntries(calls.slice(0, agentNames.length));
  assert.deepEqual(fields[FROM_AGENT.DRAINED], { hookErrors: ['Error: db'] });
  assert.equal(fields[FROM_AGENT.METRICS].rss, 1);
  assert.deepEqual(fields[FROM_AGENT.LOG_ERROR], { stream: 'err', code: 'ENOSPC' });
  assert.deepEqual(fields[FROM_AGENT.LOG_RESUMED], { stream: 'out', code: 'EIO', dropped: 3 });
  // the path the agent claims is not kept: the daemon knows where it asked it to write
  assert.deepEqual(fields[FROM_AGENT.DIAGNOSTIC_DONE], { id: 4, ok: true, bytes: 10, heapUsed: null });
  assert.deepEqual(fields[FROM_AGENT.STICKY_SESSION], { sid: 'aB3-_x9ZZqzLk0PMAAAB' });
  // a fork-mode listen(): a TCP port on an address, never a descriptor of the daemon's
  assert.deepEqual(fields[FROM_AGENT.LISTEN], { id: 5, address: null, port: 3000, addressType: 4, flags: 0 });
  assert.deepEqual(fields[FROM_AGENT.LISTEN_CLOSED], { id: 5 });
});

test('a failed diagnostic keeps a known code and a bounded message; no id, no message', () => {
  const guard = GUARDS[FROM_AGENT.DIAGNOSTIC_DONE];
  assert.deepEqual(guard({ id: 1, ok: false, error: { code: 'E_LOW_MEMORY', message: 'no room' } }), { id: 1, ok: false, error: { code: 'E_LOW_MEMORY', message: 'no room' } });
  const odd = guard({ id: 2, ok: false, error: { code: 'E_INTERNAL', message: 'x'.repeat(1e5) } });
  assert.equal(odd.error.code, 'E_DIAGNOSTICS');
  assert.equal(odd.error.message.length, 500);
  assert.equal(guard({ id: 3, ok: 'yes' }).error.code, 'E_DIAGNOSTICS');
  assert.equal(guard({ id: 'x', ok: true }), null);
  assert.equal(guard({ ok: true }), null);
});

test('the table needs exactly one handler per agent message', () => {
  const handlers = Object.fromEntries(agentNames.map((name) => [name, () => {}]));
  assert.equal(routeTable(handlers).size, agentNames.length);
  const { [FROM_AGENT.METRICS]: _, ...missing } = handlers;
  assert.throws(() => routeTable(missing), /no handler for super:metrics/);
  assert.throws(() => routeTable({ ...handlers, [TO_AGENT.SHUTDOWN]: () => {} }), /super:shutdown is not an agent message/);
  assert.throws(() => routeTable({ ...handlers, 'super:typo': () => {} }), /not an agent message/);
});

test('garbage, the app\'s own messages and malformed fields are dropped', () => {
  const { calls, send } = recorder();
  const garbage = [
    null, undefined, 0, 7, true, '', 'text', 'shutdown', [], [FROM_AGENT.READY], { cmd: 7 }, { cmd: null }, {},
    { cmd: 'NODE_CLUSTER' }, { cmd: 'super:unknown' }, { cmd: 'constructor' }, { cmd: '__proto__' }, { cmd: 'toString' },
    { cmd: 'SUPER:READY' }, { cmd: `${FROM_AGENT.READY} ` },
    ...daemonNames.map((name) => envelope(name)), // the daemon's words, said by a worker
    envelope(FROM_AGENT.METRICS), envelope(FROM_AGENT.METRICS, { data: null }), envelope(FROM_AGENT.METRICS, { data: 'big' }),
    envelope(FROM_AGENT.LOG_ERROR, { stream: 'out', code: 'EMADEUP1' }), envelope(FROM_AGENT.LOG_ERROR, { stream: 'x', code: 'EIO' }),
    envelope(FROM_AGENT.LOG_ERROR, { stream: 'out', code: ['EIO'] }), envelope(FROM_AGENT.LOG_RESUMED, { stream: 'err' }),
    envelope(FROM_AGENT.DIAGNOSTIC_DONE, { ok: true }), envelope(FROM_AGENT.DIAGNOSTIC_DONE, { id: 1.5, ok: true }),
    envelope(FROM_AGENT.STICKY_SESSION), envelope(FROM_AGENT.STICKY_SESSION, { sid: 'x'.repeat(65) }), envelope(FROM_AGENT.STICKY_SESSION, { sid: 'a b' }),
    envelope(FROM_AGENT.LISTEN, { id: 1, address: null, port: 0, addressType: 4 }), envelope(FROM_AGENT.LISTEN, { id: 1, address: null, port: 70000, addressType: 4 }),
    envelope(FROM_AGENT.LISTEN, { id: 1, address: 'x'.repeat(65), port: 80, addressType: 4 }), envelope(FROM_AGENT.LISTEN, { id: 1, address: null, port: 80, addressType: -1 }),
    envelope(FROM_AGENT.LISTEN_CLOSED, { id: 'a' }),
  ];
  for (const m of garbage) send(m);
  assert.deepEqual(calls, []);
  assert.equal(agentMessageName({ cmd: 'hasOwnProperty' }), undefined);
  assert.equal(daemonMessageName(envelope(FROM_AGENT.READY)), undefined, 'the agent routes only the daemon\'s names');
  assert.deepEqual(daemonNames.map((name) => daemonMessageName(envelope(name))), daemonNames);
});

/** An object that counts how many of its properties a guard reads. */
function counting(target) {
  let reads = 0;
  const proxy = new Proxy(target, { get: (o, k, r) => (typeof k === 'string' && reads++, Reflect.get(o, k, r)) });
  return { proxy, reads: () => reads };
}

test('guards read a bounded part of a message, whatever its size', () => {
  const big = 'x'.repeat(1e6);
  const errors = counting(Array.from({ length: 100000 }, () => big));
  const { hookErrors } = GUARDS[FROM_AGENT.DRAINED](envelope(FROM_AGENT.DRAINED, { hookErrors: errors.proxy }));
  assert.equal(hookErrors.length, MAX_HOOK_ERRORS);
  assert.ok(hookErrors.every((e) => e.length === MAX_HOOK_ERROR_CHARS));
  assert.ok(errors.reads() < 4 * MAX_HOOK_ERRORS, `${errors.reads()} reads of 100000 entries`);
  assert.deepEqual(GUARDS[FROM_AGENT.DRAINED]({ hookErrors: 'not a list' }), { hookErrors: [] });

  // Resource counts: at most MAX_RESOURCE_TYPES kept, and only the first keys read when none is good.
  const bad = {};
  for (let i = 0; i < 20000; i++) bad[`bad name ${i}`] = i;
  const resources = counting(bad);
  const report = GUARDS[FROM_AGENT.METRICS](envelope(FROM_AGENT.METRICS, { data: { resources: resources.proxy } }));
  assert.deepEqual(report.resources, {});
  assert.ok(resources.reads() <= 4 * MAX_RESOURCE_TYPES, `${resources.reads()} values read of 20000`);
});

test('over a real IPC channel: each side routes only its peer\'s messages; the app never sees the daemon\'s', { timeout: 10000 }, async (t) => {
  const child = fork(path.join(FIXTURES, 'apps', 'agent-channel-peer.cjs'), { serialization: 'json', stdio: 'inherit' });
  t.after(() => child.kill('SIGKILL'));
  const got = [];
  const handlers = Object.fromEntries(agentNames.map((name) => [name, () => got.push(name)]));
  listenToAgent(child, handlers);
  const next = (want) => new Promise((resolve) => {
    const on = (m) => (want(m) ? (child.off('message', on), resolve(m)) : undefined);
    child.on('message', on);
  });

  const talked = next((m) => m === 'talked');
  child.send('talk');
  await talked;
  assert.deepEqual(got, [FROM_AGENT.READY, FROM_AGENT.READY, FROM_AGENT.METRICS, FROM_AGENT.LOG_ERROR, FROM_AGENT.LOGS_REOPENED]);

  for (const name of daemonNames) tellAgent(child, name);
  child.send({ cmd: 'app:hello' });
  child.send(envelope(FROM_AGENT.READY)); // not a daemon message: the app's
  const report = next((m) => m?.routed);
  child.send('report');
  const { routed, seenByApp } = await report;
  assert.deepEqual(routed, daemonNames);
  assert.deepEqual(seenByApp, [{ cmd: 'app:hello' }, envelope(FROM_AGENT.READY)]);
  child.kill('SIGKILL');
  await once(child, 'exit');
});

test('a fork-mode app may add or remove its \'message\' listeners once the channel is gone', { timeout: 10000 }, async (t) => {
  const child = fork(path.join(FIXTURES, 'apps', 'agent-channel-disconnect.cjs'), { stdio: ['ignore', 'pipe', 'inherit', 'ipc'] });
  t.after(() => child.kill('SIGKILL'));
  let out = '';
  child.stdout?.on('data', (d) => (out += d));
  await once(child, 'spawn');
  child.disconnect(); // as when the daemon goes: Node sets the child's process.channel to null
  await once(child, 'exit');
  assert.deepEqual(out.trim().split('\n'), ['remove: ok', 'add: ok']);
});
