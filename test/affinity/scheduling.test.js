// Issue 5: `scheduling: os` is in force when set (workers accept from the listening socket
// themselves; under round-robin only the daemon holds it), and a running daemon refuses a
// file that asks for another policy, with a message that points at `super upgrade --config`, at
// `start` and at a `reload` (which re-reads the file) alike.
import test, { after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import { sandbox, freePort, httpGet, lsJson, describeJson } from '../helpers/harness.js';
import { waitForLog } from '../helpers/metrics.js';
import { ALLOWED, ALL, masksOf } from '../helpers/cpus.js';
import { request } from '../helpers/requests.js';
import { eventually } from '../helpers/wait.js';
import { reusePortSupport } from '../../lib/connection-path-choice.js';
import { fdTargets } from '../helpers/proc-fds.js';

/** Pids (among `pids`) holding an IPv4 listening socket of 127.0.0.1:port (there are `sockets` of them) as an open fd. */
function listenHolders(port, pids, sockets = 1) {
  const hexPort = port.toString(16).toUpperCase().padStart(4, '0');
  const inodes = new Set();
  for (const line of fs.readFileSync('/proc/net/tcp', 'utf8').split('\n').slice(1)) {
    const f = line.trim().split(/\s+/);
    if (f[1]?.endsWith(`:${hexPort}`) && f[3] === '0A') inodes.add(`socket:[${f[9]}]`);
  }
  assert.equal(inodes.size, sockets, `${sockets} listening socket(s) on port ${port}`);
  return pids.filter((pid) => fdTargets(pid).some((d) => inodes.has(d.target)));
}

async function startWeb(t, scheduling) {
  const box = await sandbox(t);
  const port = await freePort();
  box.fixture('http-server.js');
  const head = scheduling ? `scheduling: ${scheduling}\n` : '';
  const eco = box.write('eco.yml', `${head}apps:\n  - name: web\n    script: http-server.js\n    instances: 2\n    env: { PORT: ${port} }\n`);
  await box.start(eco);
  const pids = (await lsJson(box)).apps[0].workers.map((w) => w.pid);
  return { box, port, pids };
}

// One daemon per policy (`os`, and the default), its `web` shared by the tests that only
// read it or add apps of their own (deleted after); none changes `web`, so each sees it as started.
const webs = new Map();
after(async () => {
  for (const web of webs.values()) await (await web).box.cleanup();
});
const sharedWeb = (scheduling) => {
  if (!webs.has(scheduling)) webs.set(scheduling, startWeb({ after: () => {} }, scheduling));
  return webs.get(scheduling);
};

test('scheduling: os is in force: describe says so and the workers accept from the socket themselves', async () => {
  const { box, port, pids } = await sharedWeb('os');
  const d = await describeJson(box, 'web');
  assert.equal(d.scheduling, 'os');
  assert.match((await box.cli(['describe', 'web'])).stdout, /scheduling os/);
  assert.deepEqual(listenHolders(port, pids).sort(), [...pids].sort(), 'each worker holds the shared listening socket');
  assert.match((await httpGet(port)).body, /app=web/);
});

test('auto (the default) takes reuseport on a Node that has it (the daemon and each worker hold a slot\'s socket), round-robin elsewhere (the daemon alone holds the socket)', async () => {
  const { box, port, pids } = await sharedWeb(null);
  const d = await describeJson(box, 'web');
  const reusePort = reusePortSupport().ok;
  assert.deepEqual([d.scheduling, d.connections.path], ['auto', reusePort ? 'reuseport' : 'round-robin']);
  assert.deepEqual(listenHolders(port, [box.daemonPid(), ...pids], reusePort ? 2 : 1).sort(), (reusePort ? [box.daemonPid(), ...pids] : [box.daemonPid()]).sort());
  // and fresh connections reach both workers (in turn under round-robin; by the kernel's hash under reuseport)
  const seen = new Set();
  await eventually(async () => seen.add(/slot=(\d)/.exec((await httpGet(port)).body)[1]).size === 2, { timeout: 20000, what: 'answers from both slots' });
});

test('a running daemon refuses another scheduling policy (restart needed) and accepts files that do not say', async (t) => {
  const { box, port, pids } = await sharedWeb('os');
  t.after(() => request(box, 'delete', { target: ['same', 'silent'] }).catch(() => {}));
  const other = box.write('rr.yml', `scheduling: round-robin\napps:\n  - name: more\n    script: http-server.js\n    env: { PORT: ${await freePort()} }\n`);
  const r = await box.cli(['start', other]);
  assert.equal(r.code, 2, r.stderr);
  assert.match(r.stderr, /^super: E_SCHEDULING_FIXED: .*rr\.yml asks for scheduling: round-robin, but this daemon runs os .*replace the daemon: `super upgrade --config .*rr\.yml`/m);
  const ls = await lsJson(box);
  assert.deepEqual(ls.apps.map((a) => a.name), ['web'], 'nothing of the refused file started');
  assert.deepEqual(ls.apps[0].workers.map((w) => w.pid), pids, 'running workers untouched');

  const same = box.write('same.yml', `scheduling: os\napps:\n  - name: same\n    script: http-server.js\n    env: { PORT: ${await freePort()} }\n`);
  await box.start(same);
  const silent = box.write('silent.yml', `apps:\n  - name: silent\n    script: http-server.js\n    env: { PORT: ${await freePort()} }\n`);
  await box.start(silent);
  assert.deepEqual((await lsJson(box)).apps.map((a) => [a.name, a.status]), [['web', 'online'], ['same', 'online'], ['silent', 'online']]);
  assert.equal((await describeJson(box, 'silent')).scheduling, 'os');
  assert.match((await httpGet(port)).body, /app=web/);
});

test('a reload re-reads the file\'s scheduling too: another policy is refused before anything changes, by `super reload` and by SIGHUP', async (t) => {
  const { box, port, pids } = await sharedWeb(null);
  const file = `${box.dir}/eco.yml`;
  const started = fs.readFileSync(file, 'utf8');
  t.after(() => fs.writeFileSync(file, started));
  box.write('eco.yml', started.replace(/^/, 'scheduling: os\n').replace(`PORT: ${port}`, `PORT: ${port}, VERSION: v2`));
  const r = await box.cli(['reload', 'web']);
  assert.equal(r.code, 2, r.stdout + r.stderr);
  assert.match(r.stderr, /^super: E_SCHEDULING_FIXED: .*eco\.yml asks for scheduling: os, but this daemon runs auto .*`super upgrade --config /m);
  assert.doesNotMatch(r.stdout, /reloading/, 'no slot was touched');
  const ls = await lsJson(box);
  assert.deepEqual(ls.apps[0].workers.map((w) => [w.pid, w.restarts, w.status]), pids.map((pid) => [pid, 0, 'online']), 'same workers');
  assert.equal(ls.apps[0].last_reload ?? null, null, 'no reload was recorded');
  assert.equal((await describeJson(box, 'web')).scheduling, 'auto');

  // SIGHUP (systemd's ExecReload) takes the same path: refused, logged with its code.
  process.kill(box.daemonPid(), 'SIGHUP');
  await waitForLog(box, /"code":"E_SCHEDULING_FIXED"[^\n]*"msg":"SIGHUP reload refused"/, 30000);
  assert.deepEqual((await lsJson(box)).apps[0].workers.map((w) => w.pid), pids, 'same workers after SIGHUP');
  assert.match((await httpGet(port)).body, /app=web/);
});

test('reload all checks every file\'s scheduling before any file pins the daemon', { skip: ALLOWED.length < 2 ? 'needs at least 2 CPUs' : false }, async (t) => {
  const box = await sandbox(t);
  box.fixture('http-server.js');
  const [p1, p2] = [await freePort(), await freePort()];
  const a = (head) => `${head}apps:\n  - name: a\n    script: http-server.js\n    env: { PORT: ${p1} }\n`;
  const b = (head) => `${head}apps:\n  - name: b\n    script: http-server.js\n    env: { PORT: ${p2} }\n`;
  for (const [name, text] of [['a.yml', a('')], ['b.yml', b('scheduling: round-robin\n')]]) await box.start(box.write(name, text));
  const before = (await lsJson(box)).apps.map((x) => x.workers.map((w) => w.pid));
  const daemonMask = masksOf(box.daemonPid()).masks;
  // a.yml (reloaded first) would now pin the daemon; b.yml asks for another policy.
  box.write('a.yml', a(`daemon:\n  cpu_affinity: ${ALLOWED[0]}\n`));
  box.write('b.yml', b('scheduling: os\n'));
  const r = await box.cli(['reload', 'all']);
  assert.equal(r.code, 2, r.stdout + r.stderr);
  assert.match(r.stderr, /E_SCHEDULING_FIXED: .*b\.yml asks for scheduling: os/);
  assert.deepEqual((await lsJson(box)).apps.map((x) => x.workers.map((w) => w.pid)), before, 'no worker replaced');
  assert.deepEqual(masksOf(box.daemonPid()).masks, daemonMask, 'the daemon was not pinned');
  assert.equal((await describeJson(box, 'a')).daemon_cpus, ALL);
});
