// sticky: with the real socket.io server (test/fixtures/apps/socketio.cjs, a plain app with
// no sticky code) and socket.io-client on its default transports (long-polling, then the
// upgrade to websocket), 4 workers. Without sticky, a session's requests land on workers
// that do not know it ("Session ID unknown", HTTP 400): the client cannot connect. With
// sticky: ip, 0 errors and each client on one worker; through `super reload` every client
// reconnects to a new worker (its websocket closed with 1001 "going away" by the retiring
// worker's agent) and no acknowledged message is lost. With sticky: sid, the same
// through one shared client address (a real HAProxy in TCP mode, else a TCP forwarder).
import test from 'node:test';
import assert from 'node:assert/strict';
import http from 'node:http';
import net from 'node:net';
import path from 'node:path';
import { spawn, spawnSync } from 'node:child_process';
import { createRequire } from 'node:module';
import { freePort, lsJson, FIXTURES, sandbox } from '../helpers/harness.js';
import { fileSandbox, deleteAtEnd } from '../helpers/file-daemon.js';
import { eventually } from '../helpers/wait.js';

const { io } = createRequire(import.meta.url)('socket.io-client');
const APP = path.join(FIXTURES, 'apps', 'socketio.cjs');
const CLIENTS = 30;
const HAPROXY = ['/usr/sbin/haproxy', 'haproxy'].find((p) => spawnSync(p, ['-v']).status === 0);

const box = await fileSandbox();

/** Starts app `name` with 4 workers and `sticky` on a free port: the port. */
async function startApp(t, name, sticky, extra = '') {
  const port = await freePort();
  deleteAtEnd(t, box, [name]);
  const file = box.write(`${name}.yml`, `apps:
  - name: ${name}
    script: ${APP}
    instances: 4
    drain_timeout: 1s
${sticky === null ? '' : `    sticky: ${sticky}\n`}${extra}    env:
      PORT: ${port}
`);
  await box.start(file);
  return port;
}

/**
 * One client from its own address (127.0.0.<n>: the whole of 127/8 is loopback on Linux),
 * on socket.io's default transports. ask(n): the pid of the worker that acknowledged n.
 */
function client(port, i, { reconnection = false, via = port, shared = false } = {}) {
  const agent = new http.Agent(shared ? {} : { localAddress: `127.0.0.${10 + i}` });
  const socket = io(`http://127.0.0.1:${via}`, { agent, reconnection, reconnectionDelay: 100, reconnectionDelayMax: 500, forceNew: true, timeout: 5000 });
  const connected = new Promise((resolve) => {
    socket.once('connect', () => resolve(true));
    socket.once('connect_error', (err) => resolve(err));
  });
  return {
    socket,
    connected,
    ask: (n) => socket.timeout(4000).emitWithAck('whoami', n).then((r) => r.pid, () => null),
    close: () => {
      socket.close();
      agent.destroy();
    },
  };
}

/** CLIENTS clients each connect and ask `asks` times: {errors, perClient: Set of pids per connected client}. */
async function round(port, opts = {}, asks = 3) {
  const clients = Array.from({ length: CLIENTS }, (_, i) => client(port, i, opts));
  try {
    const results = await Promise.all(clients.map(async (c) => {
      const ok = await c.connected;
      if (ok !== true) return { error: String(/** @type {any} */ (ok)?.message ?? ok) };
      const pids = new Set();
      for (let n = 0; n < asks; n++) pids.add(await c.ask(n));
      return { pids };
    }));
    const errors = results.filter((r) => r.error).map((r) => r.error);
    return { errors: errors.length, why: errors.join('; '), perClient: results.filter((r) => r.pids).map((r) => r.pids) };
  } finally {
    for (const c of clients) c.close();
  }
}

test('without sticky, socket.io clients on the default transports fail across 4 workers (the test can fail)', async (t) => {
  const port = await startApp(t, 'plain', null);
  const { errors } = await round(port, {}, 0);
  assert.ok(errors > 0, 'some handshakes fail ("Session ID unknown")');
});

test('sticky: ip: every client connects and stays on one worker; through super reload every client reconnects and no acknowledged message is lost', async (t) => {
  const port = await startApp(t, 'by-ip', 'ip');
  const { errors, why, perClient } = await round(port);
  assert.equal(errors, 0, why);
  assert.equal(perClient.length, CLIENTS);
  for (const pids of perClient) assert.equal(pids.size, 1, `one worker per client: ${[...pids]}`);
  assert.ok(new Set(perClient.map((p) => [...p][0])).size > 1, 'clients spread over the workers');

  // Reload with every client connected and asking; each message retried until acknowledged.
  const before = new Set((await lsJson(box)).apps.find((a) => a.name === 'by-ip').workers.map((w) => w.pid));
  const clients = Array.from({ length: CLIENTS }, (_, i) => client(port, i, { reconnection: true }));
  t.after(() => clients.forEach((c) => c.close()));
  for (const c of clients) assert.equal(await c.connected, true);
  const closeCodes = [];
  for (const c of clients) c.socket.once('disconnect', (reason, details) => closeCodes.push(/** @type {any} */ (details)?.context?.code ?? reason));
  await eventually(() => clients.every((c) => c.socket.io.engine?.transport?.name === 'websocket'), { timeout: 10000, what: 'every client upgraded to websocket' });
  // Each worker reports its open connections (ls --json, describe, Prometheus).
  let counted = [];
  const websockets = async () => {
    counted = (await lsJson(box)).apps.find((a) => a.name === 'by-ip').workers.map((w) => [w.metrics?.connections, w.metrics?.websockets]);
    return counted.reduce((sum, [, ws]) => sum + (ws ?? 0), 0) === CLIENTS;
  };
  await eventually(websockets, { timeout: 10000, what: `${CLIENTS} websockets counted`, last: () => JSON.stringify(counted) });
  for (const [open, ws] of counted) assert.ok(open >= ws, 'a websocket is an open connection');
  let reloading = true;
  const lost = [];
  const talk = clients.map(async (c, i) => {
    const seen = new Set();
    for (let n = 0; n < 3000; n++) { // until it is answered by a new worker once the reload is done
      await new Promise((r) => setTimeout(r, 20));
      let pid = null;
      for (let attempt = 0; attempt < 5 && pid === null; attempt++) pid = await c.ask(n);
      if (pid === null) lost.push(`${i}:${n}`);
      else seen.add(pid);
      if (!reloading && pid !== null && !before.has(pid)) break;
    }
    return seen;
  });
  const reload = await box.cli(['reload', 'by-ip']);
  assert.equal(reload.code, 0, reload.stderr);
  reloading = false;
  const seenPerClient = await Promise.all(talk);
  assert.deepEqual(lost, [], 'acknowledged messages lost');
  for (const seen of seenPerClient) assert.ok([...seen].some((p) => !before.has(p)), 'each client reached a new worker after the reload');
  // Its worker retired, each websocket was closed by superd's agent with 1001 "going away" before the drain's deadline.
  assert.deepEqual(closeCodes, Array(CLIENTS).fill(1001));
});

test('sticky: ip: a crashed worker\'s clients reconnect to a live worker; every other client keeps its connection and its worker', async (t) => {
  const port = await startApp(t, 'crash', 'ip');
  const clients = Array.from({ length: CLIENTS }, (_, i) => client(port, i, { reconnection: true }));
  t.after(() => clients.forEach((c) => c.close()));
  for (const c of clients) assert.equal(await c.connected, true);
  const pids = await Promise.all(clients.map((c) => c.ask(0)));
  const dropped = new Set();
  clients.forEach((c, i) => c.socket.on('disconnect', () => dropped.add(i)));
  const victim = pids[0];
  process.kill(victim, 'SIGKILL');
  const theirs = pids.flatMap((pid, i) => (pid === victim ? [i] : []));
  await eventually(() => theirs.every((i) => dropped.has(i)), { timeout: 10000, what: 'the crashed worker\'s clients disconnected' });
  const after = await Promise.all(clients.map(async (c) => {
    for (let attempt = 0; attempt < 5; attempt++) {
      const pid = await c.ask(1);
      if (pid !== null) return pid;
    }
    return null;
  }));
  for (const i of theirs) assert.ok(after[i] !== null && after[i] !== victim, `client ${i} answered by a live worker`);
  const others = pids.map((_, i) => i).filter((i) => !theirs.includes(i));
  assert.ok(others.length > 0);
  for (const i of others) {
    assert.ok(!dropped.has(i), `client ${i} kept its connection`);
    assert.equal(after[i], pids[i], `client ${i} kept its worker`);
  }
});

/** A TCP forwarder on a free port to `port`: every client reaches the daemon from one address. */
async function oneAddressInFront(t, port) {
  const front = await freePort();
  if (HAPROXY) {
    const cfg = box.write(`haproxy-${front}.cfg`, `global
    maxconn 1000
defaults
    mode tcp
    timeout connect 2s
    timeout client 30s
    timeout server 30s
frontend f
    bind 127.0.0.1:${front}
    default_backend b
backend b
    server app 127.0.0.1:${port}
`);
    const child = spawn(HAPROXY, ['-f', cfg, '-db'], { stdio: 'ignore' });
    t.after(() => child.kill('SIGKILL'));
  } else {
    const server = net.createServer((c) => {
      const up = net.connect(port, '127.0.0.1');
      c.pipe(up).pipe(c);
      c.on('error', () => up.destroy());
      up.on('error', () => c.destroy());
    }).listen(front, '127.0.0.1');
    t.after(() => server.close());
  }
  for (let i = 0; i < 100; i++) { // until it accepts
    if (await new Promise((resolve) => net.connect(front, '127.0.0.1').once('connect', function () { this.destroy(); resolve(true); }).once('error', () => resolve(false)))) return front;
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error('the proxy never listened');
}

test('sticky: sid: through one shared client address (HAProxy, TCP mode), every client connects and stays on one worker, spread over the workers', async (t) => {
  const port = await startApp(t, 'by-sid', 'sid');
  const via = await oneAddressInFront(t, port);
  const { errors, why, perClient } = await round(port, { via, shared: true });
  assert.equal(errors, 0, why);
  for (const pids of perClient) assert.equal(pids.size, 1, `one worker per client: ${[...pids]}`);
  assert.equal(new Set(perClient.map((p) => [...p][0])).size, 4, 'handshakes spread over every worker');
});

test('sticky under scheduling: os is refused (E_STICKY_SCHEDULING), and in fork mode (E_CONFIG)', async (t) => {
  const fresh = await sandbox(t);
  const os = await fresh.cli(['start', fresh.write('os.yml', `scheduling: os\napps:\n  - name: a\n    script: ${APP}\n    instances: 2\n    sticky: ip\n`)]);
  assert.equal(os.code, 2, os.stderr);
  assert.match(os.stderr, /E_STICKY_SCHEDULING/);
  const fork = await fresh.cli(['start', fresh.write('fork.yml', `apps:\n  - name: a\n    script: ${APP}\n    exec_mode: fork\n    sticky: sid\n`)]);
  assert.equal(fork.code, 2, fork.stderr);
  assert.match(fork.stderr, /sticky.*needs exec_mode: cluster/s);
});
