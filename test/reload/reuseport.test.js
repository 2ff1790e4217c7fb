// Issue 42: `scheduling: reuseport` (and `auto`, which takes it on a Node that has it): each
// cluster worker accepts from its slot's SO_REUSEPORT socket, bound by the daemon after the
// listen guards judged the query and held by it (lib/master/process/cluster-internals/
// reuse-port.js). Checked here: every worker holds its own socket and serves fresh
// connections; the port-owner guard refuses a second app with the daemon's reason; a reload
// under `Connection: close` load fails no request (under heavier load: bench/reload.js);
// what a stopped worker left queued on its socket is served, not reset, when it is replaced
// (reload), killed (crash) or retired (scale-down), on a kernel that does not migrate a
// closing listener's queue (net.ipv4.tcp_migrate_req = 0) as on one that does; `auto` keeps
// round-robin for a sticky app (and a later file asking another mode of its family warns
// and is not taken); a port served from an inherited socket stays on it; a Node
// without reusePort refuses the explicit key and falls back under `auto`. The uid guard on
// this path: test/hardening/uid-listen.test.js; `super upgrade`: test/upgrade/.
import test from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import net from 'node:net';
import { spawn } from 'node:child_process';
import { sandbox, freePort, httpGet, lsJson, describeJson, signal, SUPER } from '../helpers/harness.js';
import { startLoad, answeredBy } from '../helpers/load.js';
import { eventually } from '../helpers/wait.js';
import { reusePortSupport } from '../../lib/connection-path-choice.js';
import { writeDump, readDump, parseDump, dumpPath } from '../../lib/master/saved/dump.js';
import { fdTargets } from '../helpers/proc-fds.js';

const support = reusePortSupport();
const needsReusePort = !support.ok && support.why;

/** The inodes of the listening IPv4 sockets on 127.0.0.1:port, and which of `pids` hold each. */
function listeners(port, pids) {
  const hexPort = port.toString(16).toUpperCase().padStart(4, '0');
  const inodes = new Set();
  for (const line of fs.readFileSync('/proc/net/tcp', 'utf8').split('\n').slice(1)) {
    const f = line.trim().split(/\s+/);
    if (f[1]?.endsWith(`:${hexPort}`) && f[3] === '0A') inodes.add(`socket:[${f[9]}]`);
  }
  const holders = (pid) => fdTargets(pid).map((d) => d.target).filter((l) => inodes.has(l));
  return { count: inodes.size, held: new Map(pids.map((pid) => [pid, holders(pid)])) };
}

/** Fresh connections until every pid of `pids` answered (bounded). */
async function answeredByEach(port, pids) {
  const seen = new Set();
  await eventually(async () => {
    seen.add(Number(/pid=(\d+)/.exec((await httpGet(port)).body)[1]));
    return pids.every((p) => seen.has(p));
  }, { timeout: 20000, what: `answers from each of ${pids.join(', ')}`, last: () => [...seen].join(', ') });
}

async function startWeb(t, head) {
  const box = await sandbox(t);
  const port = await freePort();
  box.fixture('http-server.js');
  await box.start(box.write('eco.yml', `${head}apps:\n  - name: web\n    script: http-server.js\n    instances: 2\n    env: { PORT: ${port} }\n`));
  const pids = (await lsJson(box)).apps[0].workers.map((w) => w.pid);
  return { box, port, pids };
}

test('scheduling: reuseport: each worker accepts from a socket of its own (the daemon holds each slot\'s), and a second app on the port is refused with the daemon\'s reason', { skip: needsReusePort }, async (t) => {
  const { box, port, pids } = await startWeb(t, 'scheduling: reuseport\n');
  const d = await describeJson(box, 'web');
  assert.equal(d.scheduling, 'reuseport');
  assert.equal(d.connections.path, 'reuseport');
  assert.match((await box.cli(['describe', 'web'])).stdout, /connections: reusePort, a socket per worker, kernel-balanced \(scheduling: reuseport; Node v/);
  const { count, held } = listeners(port, [box.daemonPid(), ...pids]);
  assert.equal(count, 2, 'one listening socket per worker');
  assert.equal(held.get(box.daemonPid()).length, 2, 'the daemon keeps each slot\'s socket');
  assert.deepEqual(pids.map((p) => held.get(p).length), [1, 1]);
  assert.notEqual(held.get(pids[0])[0], held.get(pids[1])[0], 'two sockets, not one shared');
  await answeredByEach(port, pids);

  // The port-owner guard judges this path too: a second app asking for the port is refused
  // before any bind (a SO_REUSEPORT bind would otherwise join the port's group and take its share).
  const other = box.write('other.yml', `apps:\n  - name: intruder\n    script: http-server.js\n    max_restarts: 0\n    env: { PORT: ${port} }\n`);
  const r = await box.cli(['start', other]);
  assert.notEqual(r.code, 0, r.stdout + r.stderr);
  assert.match(r.stderr, /superd: listen on port \d+ refused: app web listens there/);
  assert.equal(listeners(port, []).count, 2, 'no socket joined the port');
  await answeredByEach(port, pids);
});

/**
 * Opens `n` fresh connections to 127.0.0.1:port and sends a request on each: resolves, once
 * every one has ended, with each one's status and answering pid, or its error's code. The
 * kernel completes the handshakes whether a worker accepts or not: a connection on the socket
 * of a stopped worker waits in that socket's accept queue.
 * @returns {{sent: Promise<void>, results: Promise<{status?: number, pid?: number, error?: string}[]>}}
 */
function queuedRequests(port, n) {
  const connected = [];
  const results = Array.from({ length: n }, () => new Promise((resolve) => {
    const c = net.connect(port, '127.0.0.1');
    let data = '';
    c.setTimeout(60000, () => c.destroy(Object.assign(new Error('timeout'), { code: 'TIMEOUT' })));
    connected.push(new Promise((r) => c.once('connect', r).once('error', r)));
    c.on('connect', () => c.write('GET / HTTP/1.1\r\nHost: t\r\nConnection: close\r\n\r\n'));
    c.on('data', (d) => { data += d; });
    c.on('error', (err) => resolve({ error: /** @type {any} */ (err).code ?? err.message }));
    c.on('end', () => resolve({ status: Number(/^HTTP\/1\.1 (\d+)/.exec(data)?.[1]), pid: Number(/pid=(\d+)/.exec(data)?.[1]) }));
  }));
  return { sent: Promise.all(connected).then(() => {}), results: Promise.all(results) };
}

const slotPids = async (box) => Object.fromEntries((await lsJson(box)).apps[0].workers.map((w) => [w.slot, w.pid]));

test('auto takes reuseport on a Node that has it, whatever the kernel\'s tcp_migrate_req, and a reload under Connection: close load fails no request', { skip: needsReusePort, timeout: 120000 }, async (t) => {
  const { box, port, pids } = await startWeb(t, '');
  const d = await describeJson(box, 'web');
  assert.equal(d.scheduling, 'auto');
  assert.deepEqual([d.connections.path, d.connections.why], ['reuseport', `scheduling: auto; Node ${process.version}`]);
  assert.equal(listeners(port, []).count, 2);

  const by = answeredBy();
  const load = startLoad({ port, connections: 4, keepAlive: false, observer: by.observer });
  try {
    await by.reached(pids, 'the old workers, before the reload');
    const r = await box.cli(['reload', 'web']);
    assert.equal(r.code, 0, r.stdout + r.stderr);
    const fresh = (await lsJson(box)).apps[0].workers.map((w) => w.pid);
    assert.equal(fresh.filter((p) => pids.includes(p)).length, 0, 'both workers replaced');
    await by.reached(fresh, 'the new workers');
  } finally {
    const result = await load.stop();
    assert.equal(result.failed + result.non2xx, 0, JSON.stringify(result.errors));
  }
  assert.equal((await describeJson(box, 'web')).connections.path, 'reuseport', 'the replacements listen the same way');
  assert.equal(listeners(port, []).count, 2, 'the replacements took their slots\' sockets: none bound anew');
});

// Deterministic, on any kernel: a worker stopped with SIGSTOP accepts nothing, so the
// connections the kernel gives its socket wait in that socket's accept queue. On a kernel
// that does not migrate a closing listener's queue (tcp_migrate_req = 0, the default), a
// socket closed with its worker would reset them.
const STOPPABLE = (port, instances) => `apps:\n  - name: web\n    script: http-server.js\n    instances: ${instances}\n    drain_timeout: 1s\n    kill_timeout: 300ms\n    env: { PORT: ${port} }\n`;

test('reuseport: a reload\'s replacement takes its slot\'s socket, and serves what its stopped predecessor left queued there', { skip: needsReusePort, timeout: 60000 }, async (t) => {
  const box = await sandbox(t);
  const port = await freePort();
  box.fixture('http-server.js');
  await box.start(box.write('eco.yml', `scheduling: reuseport\n${STOPPABLE(port, 1)}`));
  const [old] = (await lsJson(box)).apps[0].workers.map((w) => w.pid);
  process.kill(old, 'SIGSTOP');
  t.after(() => signal(old, 'SIGCONT'));
  const queued = queuedRequests(port, 8);
  await queued.sent;
  const r = await box.cli(['reload', 'web']);
  assert.equal(r.code, 0, r.stdout + r.stderr);
  const [fresh] = (await lsJson(box)).apps[0].workers.map((w) => w.pid);
  assert.notEqual(fresh, old);
  const results = await queued.results;
  assert.deepEqual(results, results.map(() => ({ status: 200, pid: fresh })), 'every queued connection answered by the replacement');
  const { count, held } = listeners(port, [box.daemonPid(), fresh]);
  assert.equal(count, 1, 'one socket: the slot\'s');
  assert.equal(held.get(box.daemonPid()).length, 1, 'the daemon holds it');
});

test('reuseport: the socket of a slot scaled down or crashed is lent to the other workers (its queue served, its share accepted), taken back by the slot\'s next worker, and closed with the app', { skip: needsReusePort, timeout: 90000 }, async (t) => {
  const box = await sandbox(t);
  const port = await freePort();
  box.fixture('http-server.js');
  await box.start(box.write('eco.yml', `scheduling: reuseport\n${STOPPABLE(port, 2).replace('    drain_timeout', '    restart_delay: 60s\n    drain_timeout')}`));
  let slots = await slotPids(box);
  const stopped = [];
  t.after(() => stopped.forEach((pid) => signal(pid, 'SIGCONT')));
  const stopAndQueue = async (pid) => {
    process.kill(pid, 'SIGSTOP');
    stopped.push(pid);
    const q = queuedRequests(port, 16);
    await q.sent;
    return q.results;
  };

  // A crash (restart_delay keeps the slot empty): slot 1's queue goes to slot 0's worker.
  let results = stopAndQueue(slots[1]);
  process.kill(slots[1], 'SIGKILL');
  assert.deepEqual(await results, Array.from({ length: 16 }, () => ({ status: 200, pid: slots[0] })), 'every connection answered by the live worker');
  assert.equal(listeners(port, []).count, 2, 'the crashed slot\'s socket stays open');
  const fresh = Array.from({ length: 16 }, () => httpGet(port));
  for (const res of await Promise.all(fresh)) assert.match(res.body, new RegExp(`pid=${slots[0]} `), 'its share accepted by the live worker');

  // The slot's next worker takes its socket back: no socket bound anew, both serve again.
  assert.equal((await box.cli(['restart', 'web'])).code, 0);
  slots = await slotPids(box);
  assert.equal(listeners(port, []).count, 2);
  await answeredByEach(port, Object.values(slots));

  // A scale-down: slot 1's worker (stopped, so it never closes its server) retires and is killed.
  results = stopAndQueue(slots[1]);
  const r = await box.cli(['scale', 'web', '1']);
  assert.equal(r.code, 0, r.stdout + r.stderr);
  assert.deepEqual(await results, Array.from({ length: 16 }, () => ({ status: 200, pid: slots[0] })));
  const { count, held } = listeners(port, [box.daemonPid(), slots[0]]);
  assert.equal(count, 2, 'the scaled-down slot\'s socket stays open');
  assert.equal(held.get(box.daemonPid()).length, 2, 'the daemon holds both sockets');
  assert.equal(held.get(slots[0]).length, 2, 'the remaining worker accepts from both');

  // The app stops: every socket of its port closes, and the port is free.
  assert.equal((await box.cli(['stop', 'web'])).code, 0);
  assert.equal(listeners(port, []).count, 0);
  const probe = net.createServer();
  await new Promise((resolve, reject) => probe.once('error', reject).listen(port, '127.0.0.1', () => resolve()));
  await new Promise((resolve) => probe.close(resolve));
});

test('reuseport: `super upgrade` hands each slot\'s socket to the new daemon, whose workers serve what a stopped old worker left queued', { skip: needsReusePort, timeout: 90000 }, async (t) => {
  const box = await sandbox(t);
  const port = await freePort();
  box.fixture('http-server.js');
  await box.start(box.write('eco.yml', `scheduling: reuseport\n${STOPPABLE(port, 2)}`));
  const oldDaemon = box.daemonPid();
  const old = await slotPids(box);
  process.kill(old[0], 'SIGSTOP');
  t.after(() => signal(old[0], 'SIGCONT'));
  const queued = queuedRequests(port, 16);
  await queued.sent;
  const r = await box.cli(['upgrade']);
  assert.equal(r.code, 0, r.stdout + r.stderr);
  const results = await queued.results;
  assert.deepEqual(results.map((x) => x.status), results.map(() => 200), JSON.stringify(results));
  const fresh = await slotPids(box);
  assert.ok(results.some((x) => !Object.values(old).includes(x.pid)), `the new daemon's workers served the stopped worker's queue: ${JSON.stringify(results)}`);
  assert.notEqual(box.daemonPid(), oldDaemon);
  const { count, held } = listeners(port, [box.daemonPid()]);
  assert.equal(count, 2, 'the same two sockets: none bound anew');
  assert.equal(held.get(box.daemonPid()).length, 2, 'the new daemon holds them');
  assert.equal((await describeJson(box, 'web')).connections.path, 'reuseport');
  await answeredByEach(port, Object.values(fresh));
});

test('auto keeps round-robin for a sticky app, scheduling: reuseport refuses one, and a later file\'s other round-robin-family mode warns and is not taken', { skip: needsReusePort }, async (t) => {
  const box = await sandbox(t);
  box.fixture('http-server.js');
  const sticky = (head) => `${head}apps:\n  - name: rt\n    script: http-server.js\n    instances: 2\n    sticky: ip\n    env: { PORT: ${port} }\n`;
  const port = await freePort();
  const r = await box.cli(['start', box.write('rp.yml', sticky('scheduling: reuseport\n'))]);
  assert.equal(r.code, 2, r.stderr);
  assert.match(r.stderr, /^super: E_STICKY_SCHEDULING: .*rt asks for sticky: ip, but connections reach workers with scheduling: reuseport/m);
  await box.start(box.write('auto.yml', sticky('')));
  const d = await describeJson(box, 'rt');
  assert.deepEqual([d.connections.path, d.connections.why], ['round-robin', 'scheduling: auto; sticky: ip needs the daemon to choose the worker']);
  assert.match((await httpGet(port)).body, /app=rt/);

  // A later file asking for another mode of cluster's round-robin family is started, with a
  // warning that the daemon's mode stays (E_SCHEDULING_FIXED is for os against the others):
  // its app takes auto's path, reuseport, not the round-robin it asked for.
  const rr = box.write('rr.yml', `scheduling: round-robin\napps:\n  - name: more\n    script: http-server.js\n    env: { PORT: ${await freePort()} }\n`);
  const started = await box.cli(['start', rr]);
  assert.equal(started.code, 0, started.stderr);
  assert.match(started.stdout + started.stderr, /rr\.yml asks for scheduling: round-robin, but this daemon runs auto \(fixed at its first start\) and goes on with it/);
  assert.equal((await describeJson(box, 'more')).connections.path, 'reuseport');
});

test('a Node without reusePort refuses scheduling: reuseport, and auto takes round-robin there', { skip: support.ok && `Node ${process.version} has reusePort` }, async (t) => {
  const box = await sandbox(t);
  box.fixture('http-server.js');
  const port = await freePort();
  const eco = (head) => `${head}apps:\n  - name: web\n    script: http-server.js\n    env: { PORT: ${port} }\n`;
  const r = await box.cli(['start', box.write('rp.yml', eco('scheduling: reuseport\n'))]);
  assert.equal(r.code, 2, r.stderr);
  assert.match(r.stderr, /^super: E_REUSEPORT_UNSUPPORTED: .*rp\.yml asks for scheduling: reuseport, but the daemon cannot: Node v\S+ has no reusePort/m);
  await box.start(box.write('auto.yml', eco('')));
  const d = await describeJson(box, 'web');
  assert.equal(d.connections.path, 'round-robin');
  assert.match(d.connections.why, /^scheduling: auto; Node v\S+ has no reusePort/);
  assert.match((await httpGet(port)).body, /app=web/);
});

test('a saved dump keeps the daemon\'s scheduling (auto, reuseport), and one from before auto reads as round-robin', async (t) => {
  const home = fs.mkdtempSync(path.join(os.tmpdir(), 'sd-dump-'));
  t.after(() => fs.rmSync(home, { recursive: true, force: true }));
  const apps = [{ config: { name: 'a', script: '/srv/app.js', instances: 1 }, clientEnv: {} }];
  for (const scheduling of ['auto', 'reuseport', 'os', 'round-robin']) {
    await writeDump(home, { apps, scheduling, version: 'test' }, { force: true });
    assert.equal((await readDump(home)).scheduling, scheduling);
  }
  const old = JSON.parse(fs.readFileSync(dumpPath(home), 'utf8'));
  assert.equal(parseDump(JSON.stringify({ ...old, scheduling: 'something-else' })).scheduling, 'round-robin');
});

test('a port the daemon inherited (systemd\'s LISTEN_FDS) stays on that socket under reuseport, and describe says so', { skip: needsReusePort }, async (t) => {
  const box = await sandbox(t);
  const port = await freePort();
  const socket = net.createServer();
  await new Promise((resolve) => socket.listen(port, '127.0.0.1', () => resolve()));
  const fd = /** @type {any} libuv's handle: no public API gives a server's fd */ (socket)._handle.fd;
  // As test/upgrade/listen-fds.test.js: a shell sets LISTEN_PID to its pid, then becomes the daemon.
  const daemon = spawn('sh', ['-c', `LISTEN_PID=$$ LISTEN_FDS=1 exec "${process.execPath}" "${SUPER}" daemon --foreground`], {
    env: { ...process.env, SUPER_HOME: box.home }, stdio: ['ignore', 'ignore', 'ignore', fd],
  });
  t.after(() => daemon.kill('SIGKILL'));
  await new Promise((resolve) => socket.close(resolve)); // the daemon's alone now
  await eventually(() => fs.existsSync(path.join(box.home, 'super.sock')), { timeout: 10000, what: 'the daemon\'s socket' });
  box.fixture('http-server.js');
  const r = await box.cli(['start', box.write('eco.yml', `scheduling: reuseport\napps:\n  - name: web\n    script: http-server.js\n    instances: 2\n    env: { PORT: ${port} }\n`)]);
  assert.equal(r.code, 0, r.stdout + r.stderr);
  const d = await describeJson(box, 'web');
  assert.equal(d.connections.path, 'round-robin');
  assert.match(d.connections.why, /^scheduling: reuseport; .*but its port is a listening socket the daemon inherited/);
  const pids = (await lsJson(box)).apps[0].workers.map((w) => w.pid);
  const { count, held } = listeners(port, [daemon.pid, ...pids]);
  assert.equal(count, 1, 'the inherited socket alone, no SO_REUSEPORT socket beside it');
  assert.equal(held.get(daemon.pid).length, 1);
  await answeredByEach(port, pids);
});
