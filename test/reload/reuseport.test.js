// Issue 42: `scheduling: reuseport` (and `auto` where it picks it): each cluster worker
// accepts from a SO_REUSEPORT socket of its own, bound by the daemon after the listen
// guards judged the query (lib/master/process/cluster-internals/reuse-port.js). Checked
// here: every worker holds its own socket and serves fresh connections, the daemon holds
// none; the port-owner guard refuses a second app with the daemon's reason; `auto` picks
// reuseport where the kernel migrates a closing listener's queue (net.ipv4.tcp_migrate_req
// = 1: in a network namespace of the test's own) and a reload under `Connection: close` load
// then fails no request (under heavier load: bench/reload.js --scheduling,
// docs/measurements.md); `auto` keeps round-robin where the kernel does not migrate and
// for a sticky app; a port served from an inherited socket stays on it; a Node without
// reusePort refuses the explicit key and falls back under `auto`. The uid guard on this
// path: test/hardening/uid-listen.test.js.
import test from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import net from 'node:net';
import { execFile, spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { sandbox, freePort, httpGet, lsJson, describeJson, SUPER } from '../helpers/harness.js';
import { startLoad, answeredBy } from '../helpers/load.js';
import { eventually } from '../helpers/wait.js';
import { reusePortSupport } from '../../lib/connection-path-choice.js';
import { which } from '../../lib/which.js';
import { writeDump, readDump, parseDump, dumpPath } from '../../lib/master/saved/dump.js';

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
  const holders = (pid) => fs.readdirSync(`/proc/${pid}/fd`).map((fd) => {
    try {
      return fs.readlinkSync(`/proc/${pid}/fd/${fd}`);
    } catch {
      return '';
    }
  }).filter((l) => inodes.has(l));
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

test('scheduling: reuseport: each worker accepts from a socket of its own, the daemon holds none, and a second app on the port is refused with the daemon\'s reason', { skip: needsReusePort }, async (t) => {
  const { box, port, pids } = await startWeb(t, 'scheduling: reuseport\n');
  const d = await describeJson(box, 'web');
  assert.equal(d.scheduling, 'reuseport');
  assert.equal(d.connections.path, 'reuseport');
  assert.match((await box.cli(['describe', 'web'])).stdout, /connections: reusePort, a socket per worker, kernel-balanced \(scheduling: reuseport; Node v/);
  const { count, held } = listeners(port, [box.daemonPid(), ...pids]);
  assert.equal(count, 2, 'one listening socket per worker');
  assert.deepEqual(held.get(box.daemonPid()), [], 'the daemon keeps no copy');
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

// The reload needs a kernel that migrates (the sysctl, not what the daemon reads): the test
// runs again in a network namespace of its own (`unshare --net`, root), where it sets
// net.ipv4.tcp_migrate_req = 1 for that namespace only, leaving the host's to the other tests.
const IN_NETNS = process.env.SUPER_TEST_IN_NETNS === '1';
const MIGRATE = '/proc/sys/net/ipv4/tcp_migrate_req';
const netnsSkip = needsReusePort || (!IN_NETNS && (process.getuid?.() !== 0 || !which('unshare') || !which('ip')) && 'needs root, unshare and ip: runs in a network namespace of its own');
const AUTO_MIGRATES = 'auto picks reuseport where the kernel migrates a closing listener\'s queue, and a reload under Connection: close load fails no request';

test(AUTO_MIGRATES, { skip: netnsSkip, timeout: 120000 }, async (t) => {
  if (!IN_NETNS) {
    // Without the runner's NODE_TEST_CONTEXT: the inner `node --test` reports on its stdout.
    const env = Object.fromEntries(Object.entries(process.env).filter(([k]) => k !== 'NODE_TEST_CONTEXT'));
    const script = `ip link set lo up && echo 1 > ${MIGRATE} && exec "$0" --test --test-reporter=tap --test-name-pattern="^auto picks reuseport" "$1"`;
    const r = await new Promise((resolve) => {
      execFile('unshare', ['--net', '--', 'sh', '-c', script, process.execPath, fileURLToPath(import.meta.url)],
        { env: { ...env, SUPER_TEST_IN_NETNS: '1' }, timeout: 110000, maxBuffer: 16 << 20 }, (err, stdout, stderr) => resolve({ err, stdout, stderr }));
    });
    assert.equal(r.err, null, `${r.stdout}\n${r.stderr}`);
    assert.match(r.stdout, /^# pass 1$/m, r.stdout);
    return;
  }
  assert.equal(fs.readFileSync(MIGRATE, 'utf8').trim(), '1', 'this namespace migrates');
  const { box, port, pids } = await startWeb(t, '');
  const d = await describeJson(box, 'web');
  assert.equal(d.scheduling, 'auto');
  assert.deepEqual([d.connections.path, d.connections.why], ['reuseport', `scheduling: auto; Node ${process.version}, tcp_migrate_req=1`]);
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

  // The kernel stops migrating: the running workers' path holds (a replacement must listen as
  // they do), describe says why, and a restart (every worker stops first) takes round-robin.
  fs.writeFileSync(MIGRATE, '0');
  const kept = (await describeJson(box, 'web')).connections;
  assert.equal(kept.path, 'reuseport');
  assert.match(kept.why, /kept while its workers run: a start now would take round-robin \(scheduling: auto; net\.ipv4\.tcp_migrate_req=0/);
  assert.equal((await box.cli(['restart', 'web'])).code, 0);
  assert.equal((await describeJson(box, 'web')).connections.path, 'round-robin');
  const restarted = (await lsJson(box)).apps[0].workers.map((w) => w.pid);
  assert.equal(listeners(port, [box.daemonPid()]).held.get(box.daemonPid()).length, 1, 'the daemon holds the listening socket now');
  await answeredByEach(port, restarted);
});

test('auto keeps round-robin where the kernel does not migrate a closing listener\'s queue', { skip: needsReusePort }, async (t) => {
  const migrate = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'sd-migrate-')), 'tcp_migrate_req');
  fs.writeFileSync(migrate, '0\n');
  process.env.SUPER_TCP_MIGRATE_REQ = migrate;
  t.after(() => {
    delete process.env.SUPER_TCP_MIGRATE_REQ;
    fs.rmSync(path.dirname(migrate), { recursive: true, force: true });
  });
  const { box, port, pids } = await startWeb(t, '');
  const d = await describeJson(box, 'web');
  assert.deepEqual([d.scheduling, d.connections.path], ['auto', 'round-robin']);
  assert.match((await box.cli(['describe', 'web'])).stdout, /connections: round-robin through the daemon \(scheduling: auto; net\.ipv4\.tcp_migrate_req=0, so a closing reusePort listener would reset its queued connections/);
  const { count, held } = listeners(port, [box.daemonPid(), ...pids]);
  assert.equal(count, 1);
  assert.equal(held.get(box.daemonPid()).length, 1, 'the daemon holds the one listening socket');

  // A later file asking for another mode of cluster's round-robin family is started, with a
  // warning that the daemon's mode stays (E_SCHEDULING_FIXED is for os against the others).
  const rr = box.write('rr.yml', `scheduling: reuseport\napps:\n  - name: more\n    script: http-server.js\n    env: { PORT: ${await freePort()} }\n`);
  const r = await box.cli(['start', rr]);
  assert.equal(r.code, 0, r.stderr);
  assert.match(r.stdout + r.stderr, /rr\.yml asks for scheduling: reuseport, but this daemon runs auto \(fixed at its first start\) and goes on with it/);
  assert.equal((await describeJson(box, 'more')).connections.path, 'round-robin');
});

test('auto keeps round-robin for a sticky app, and scheduling: reuseport refuses one', { skip: needsReusePort }, async (t) => {
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
