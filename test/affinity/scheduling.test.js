// Issue 5: `scheduling: os` is in force when set (workers accept from the listening socket
// themselves; under round-robin only the daemon holds it), and a running daemon refuses a
// file that asks for another policy, with a message that a daemon restart is needed.
import test from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import { sandbox, freePort, httpGet, lsJson } from '../helpers/harness.js';

/** Pids (among `pids`) holding the IPv4 listening socket of 127.0.0.1:port as an open fd. */
function listenHolders(port, pids) {
  const hexPort = port.toString(16).toUpperCase().padStart(4, '0');
  const inodes = new Set();
  for (const line of fs.readFileSync('/proc/net/tcp', 'utf8').split('\n').slice(1)) {
    const f = line.trim().split(/\s+/);
    if (f[1]?.endsWith(`:${hexPort}`) && f[3] === '0A') inodes.add(`socket:[${f[9]}]`);
  }
  assert.equal(inodes.size, 1, `one listening socket on port ${port}`);
  return pids.filter((pid) => fs.readdirSync(`/proc/${pid}/fd`).some((fd) => {
    try {
      return inodes.has(fs.readlinkSync(`/proc/${pid}/fd/${fd}`));
    } catch {
      return false;
    }
  }));
}

async function startWeb(t, scheduling) {
  const box = await sandbox(t);
  const port = await freePort();
  box.fixture('http-server.js');
  const head = scheduling ? `scheduling: ${scheduling}\n` : '';
  const eco = box.write('eco.yml', `${head}apps:\n  - name: web\n    script: http-server.js\n    instances: 2\n    env: { PORT: ${port} }\n`);
  const r = await box.cli(['start', eco]);
  assert.equal(r.code, 0, r.stderr);
  const pids = (await lsJson(box)).apps[0].workers.map((w) => w.pid);
  return { box, port, pids };
}

test('scheduling: os is in force: describe says so and the workers accept from the socket themselves', async (t) => {
  const { box, port, pids } = await startWeb(t, 'os');
  const d = JSON.parse((await box.cli(['describe', 'web', '--json'])).stdout);
  assert.equal(d.scheduling, 'os');
  assert.match((await box.cli(['describe', 'web'])).stdout, /scheduling os/);
  assert.deepEqual(listenHolders(port, pids).sort(), [...pids].sort(), 'each worker holds the shared listening socket');
  assert.match((await httpGet(port)).body, /app=web/);
});

test('round-robin (the default) is in force: only the daemon holds the listening socket', async (t) => {
  const { box, port, pids } = await startWeb(t, null);
  assert.equal(JSON.parse((await box.cli(['describe', 'web', '--json'])).stdout).scheduling, 'round-robin');
  assert.deepEqual(listenHolders(port, [box.daemonPid(), ...pids]), [box.daemonPid()]);
  // and hands fresh connections to both workers in turn
  const seen = new Set();
  for (let i = 0; i < 4; i++) seen.add(/slot=(\d)/.exec((await httpGet(port)).body)[1]);
  assert.deepEqual([...seen].sort(), ['0', '1']);
});

test('a running daemon refuses another scheduling policy (restart needed) and accepts files that do not say', async (t) => {
  const { box, port, pids } = await startWeb(t, 'os');
  const other = box.write('rr.yml', `scheduling: round-robin\napps:\n  - name: more\n    script: http-server.js\n    env: { PORT: ${await freePort()} }\n`);
  const r = await box.cli(['start', other]);
  assert.equal(r.code, 2, r.stderr);
  assert.match(r.stderr, /^super: E_SCHEDULING_FIXED: .*rr\.yml asks for scheduling: round-robin, but this daemon runs os .*a daemon restart is needed to change it: `super kill`, then `super start`/m);
  const ls = await lsJson(box);
  assert.deepEqual(ls.apps.map((a) => a.name), ['web'], 'nothing of the refused file started');
  assert.deepEqual(ls.apps[0].workers.map((w) => w.pid), pids, 'running workers untouched');

  const same = box.write('same.yml', `scheduling: os\napps:\n  - name: same\n    script: http-server.js\n    env: { PORT: ${await freePort()} }\n`);
  assert.equal((await box.cli(['start', same])).code, 0);
  const silent = box.write('silent.yml', `apps:\n  - name: silent\n    script: http-server.js\n    env: { PORT: ${await freePort()} }\n`);
  const s = await box.cli(['start', silent]);
  assert.equal(s.code, 0, s.stderr);
  assert.deepEqual((await lsJson(box)).apps.map((a) => [a.name, a.status]), [['web', 'online'], ['same', 'online'], ['silent', 'online']]);
  assert.equal(JSON.parse((await box.cli(['describe', 'silent', '--json'])).stdout).scheduling, 'os');
  assert.match((await httpGet(port)).body, /app=web/);
});
