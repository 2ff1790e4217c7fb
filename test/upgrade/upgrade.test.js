// Issue 17: `super upgrade` replaces the daemon without a failed request. One daemon serves
// every subtest, in order: bad input first (nothing may change), then successors that
// fail (the old daemon keeps serving), then real upgrades under load, then a SIGKILL of
// the old daemon during the handover.
import test from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { spawn } from 'node:child_process';
import { sandbox, freePort, lsJson, describeJson, httpGet, waitGone, alive, ROOT } from '../helpers/harness.js';
import { superProcess } from '../helpers/super-process.js';
import { startLoad } from '../helpers/load.js';
import { connect } from '../../lib/ipc/client.js';
import { eventually } from '../helpers/wait.js';
import { heldRequest } from '../helpers/held-requests.js';
import { reusePortSupport } from '../../lib/connection-path-choice.js';

const APP = `const http = require('node:http');
const fs = require('node:fs');
// A worker of the new daemon refuses to start while the marker file exists.
if (fs.existsSync(process.env.FAIL_FILE)) {
  console.error('upgrade-app: marker present, refusing to start');
  process.exit(3);
}
http.createServer((req, res) => {
  if (req.url.startsWith('/hold')) { // headers at once, the end a second later: a request in flight
    res.writeHead(200).flushHeaders();
    return void setTimeout(() => res.end('held\\n'), 1000);
  }
  res.end('pid=' + process.pid + '\\n');
}).listen(Number(process.env.PORT), '127.0.0.1');
`;

/** @param {{port: number, control: number, failFile: string, scheduling?: string}} o */
const eco = ({ port, control, failFile, scheduling }) => `${scheduling ? `scheduling: ${scheduling}\n` : ''}control: { listen: "127.0.0.1:${control}" }
apps:
  - name: web
    script: app.cjs
    instances: 2
    probation: 300ms
    listen_timeout: 8s
    env: { PORT: ${port}, FAIL_FILE: "${failFile}" }
`;

/** A directory that looks like a superd package whose daemon writes `msg` and exits 1 after `ms`. */
/**
 * A package whose daemon prints `msg` and exits 1 once the file `go` exists (at most 20 s
 * after it starts): the test decides when the successor crashes, whatever the machine's load.
 */
function crashingPackage(box, msg, go) {
  const dir = path.join(box.dir, 'fake-superd');
  box.write('fake-superd/package.json', JSON.stringify({ name: 'superd', version: '9.9.9-crash' }));
  box.write('fake-superd/lib/master/core/daemon.js', [
    "const fs = require('node:fs');",
    'const t0 = Date.now();',
    `const crash = () => { console.error(${JSON.stringify(msg)}); process.exit(1); };`,
    `setInterval(() => (fs.existsSync(${JSON.stringify(go)}) || Date.now() - t0 > 20000) && crash(), 20);`,
    '',
  ].join('\n'));
  return dir;
}

test('super upgrade with no daemon: E_NO_DAEMON, exit 3', async (t) => {
  const box = await sandbox(t);
  const r = await box.cli(['upgrade']);
  assert.equal(r.code, 3, r.stderr);
  assert.match(r.stderr, /^super: E_NO_DAEMON: /);
});

test('super upgrade: bad input, failing successors, upgrades under load, SIGKILL mid-handover', async (t) => {
  const box = await sandbox(t);
  const [port, control] = [await freePort(), await freePort()];
  const failFile = path.join(box.dir, 'fail-new-workers');
  box.write('app.cjs', APP);
  const file = box.write('eco.yml', eco({ port, control, failFile }));
  await box.start(file);
  const firstPid = box.daemonPid();
  const firstWorkers = (await lsJson(box)).apps[0].workers.map((w) => w.pid);

  /** The daemon and its workers did not change, and still serve. */
  const unchanged = async (what) => {
    assert.equal(box.daemonPid(), firstPid, `${what}: the same daemon`);
    assert.deepEqual((await lsJson(box)).apps[0].workers.map((w) => w.pid), firstWorkers, `${what}: the same workers`);
    assert.equal((await httpGet(port)).status, 200);
  };

  await t.test('--daemon-path that is not a superd: E_NOT_SUPERD, exit 2, nothing changes', async () => {
    const r = await box.cli(['upgrade', '--daemon-path', box.dir]);
    assert.equal(r.code, 2, r.stderr);
    assert.match(r.stderr, /^super: E_NOT_SUPERD: .* is not a superd package/);
    await unchanged('not a superd');
  });

  await t.test('a successor that crashes at boot: exit 1 with its stderr tail; two upgrades at once: E_BUSY', async () => {
    const go = path.join(box.dir, 'crash-now');
    const dir = crashingPackage(box, 'fake superd: boom at boot', go);
    const first = superProcess(box, t, ['upgrade', '--daemon-path', dir]);
    await first.waitFor(/successor daemon started/, { stream: 'out' });
    const second = await box.cli(['upgrade']);
    fs.writeFileSync(go, '');
    assert.equal(second.code, 1, second.stderr);
    assert.match(second.stderr, /^super: E_BUSY: an upgrade is already running/);
    assert.equal((await first.exited).code, 1, first.stdout + first.stderr);
    assert.match(first.stderr, /^super: E_UPGRADE_FAILED: the new daemon did not take over: it exited \(code 1\)/m);
    assert.match(first.stderr, /successor \d+ \| fake superd: boom at boot/);
    await unchanged('crashing successor');
  });

  await t.test('a successor whose workers fail readiness: stopped, exit 1, the old daemon keeps serving', async () => {
    fs.writeFileSync(failFile, '');
    const r = await box.cli(['upgrade']);
    fs.rmSync(failFile);
    assert.equal(r.code, 1, r.stdout + r.stderr);
    assert.match(r.stderr, /^super: E_UPGRADE_FAILED: .*web#\d exited with code 3 before it became ready/m);
    await unchanged('failing workers');
    // The failed successor and its workers are gone: one daemon process for this home.
    assert.equal(fs.readdirSync(box.home).filter((f) => /^super\.sock\./.test(f)).length, 0, 'no temporary control socket left');
  });

  await t.test('upgrades under keep-alive and Connection: close load: 0 failed, ls and the TCP listener always answer', async () => {
    const keepAlive = startLoad({ port, connections: 4, keepAlive: true, maxMs: 60000 });
    const close = startLoad({ port, connections: 8, keepAlive: false, maxMs: 60000 });
    let upgrading = true;
    // What `super ls --json` asks, in-process (the CLI retries nothing), every 50 ms.
    const probe = (async () => {
      const failures = [];
      let n = 0;
      while (upgrading) {
        await lsJson(box).catch((err) => failures.push(err.message));
        n++;
        await new Promise((r) => setTimeout(r, 50));
      }
      return { n, failures };
    })();
    // Both upgrades retire a round-robin daemon: one that kept accepting, or retired its
    // workers with connections still queued, would reset some (1 to 8 per run without).
    const a = await box.cli(['upgrade']);
    assert.equal(a.code, 0, a.stdout + a.stderr);
    assert.match(a.stdout, /daemon pid \d+ -> pid \d+/);
    // The second one replaces a daemon that itself inherited its sockets, with `os`
    // scheduling from --config (a setting that used to need kill + start).
    const osFile = box.write('eco-os.yml', eco({ port, control, failFile, scheduling: 'os' }));
    const b = await box.cli(['upgrade', '--config', osFile]);
    upgrading = false;
    const [ka, cl, ls] = [await keepAlive.stop(), await close.stop(), await probe];
    assert.equal(b.code, 0, b.stdout + b.stderr);
    assert.ok(ka.ok > 0 && cl.ok > 0, 'the load ran');
    assert.deepEqual({ failed: ka.failed, errors: ka.errors, non2xx: ka.non2xx }, { failed: 0, errors: {}, non2xx: 0 }, 'keep-alive client');
    assert.deepEqual({ failed: cl.failed, errors: cl.errors, non2xx: cl.non2xx }, { failed: 0, errors: {}, non2xx: 0 }, 'Connection: close client');
    assert.deepEqual(ls.failures, [], `super ls failed during the upgrades (${ls.n} runs)`);

    const pid = box.daemonPid();
    assert.notEqual(pid, firstPid);
    assert.equal(await waitGone([firstPid], 30000).then((left) => left.length), 0, 'the first daemon exited');
    assert.deepEqual(await waitGone(firstWorkers, 30000), [], 'its workers exited');
    const app = (await lsJson(box)).apps[0];
    assert.equal(app.status, 'online');
    assert.equal(app.workers.length, 2);
    const token = fs.readFileSync(path.join(box.home, 'token'), 'utf8').trim();
    const remote = await connect(box.home, { remote: { where: { host: '127.0.0.1', port: control, headers: { authorization: `Bearer ${token}` } }, label: 'test' } });
    try {
      assert.equal((await remote.request('ls')).apps.length, 1, 'the TCP control listener moved');
    } finally {
      remote.close();
    }
    assert.match(fs.readFileSync(path.join(box.home, 'daemon.log'), 'utf8'), /"scheduling":"os".*cluster scheduling policy fixed/);
    // On a Node with reusePort, `auto` put web on reuseport: its port stays on the slots'
    // sockets the new daemon took over (none can join them without SO_REUSEPORT), and describe says so.
    if (reusePortSupport().ok) {
      const c = (await describeJson(box, 'web')).connections;
      assert.equal(c.path, 'reuseport');
      assert.match(c.why, /^scheduling: os; but its port's SO_REUSEPORT sockets came from the daemon super upgrade replaced/);
    }
  });

  await t.test('SIGKILL of the old daemon during the handover: no orphans, the successor takes over', async () => {
    const oldPid = box.daemonPid();
    const oldWorkers = (await lsJson(box)).apps[0].workers.map((w) => w.pid);
    const u = superProcess(box, t, ['upgrade']);
    // Killed once the successor has the state (before that, neither serves: the next test).
    await u.waitFor(/starting 1 app\(s\)/, { stream: 'out' });
    const successor = Number(/successor daemon started \(pid (\d+)\)/.exec(u.stdout)[1]);
    // Requests in flight when it dies (on the old workers, which still serve): answered in full.
    const held = await Promise.all(Array.from({ length: 4 }, () => heldRequest(port, 1000)));
    process.kill(oldPid, 'SIGKILL');
    await u.exited;
    const answers = await Promise.all(held.map((h) => h.done));
    assert.deepEqual(answers, Array(4).fill({ status: 200, body: 'held\n', error: null }), 'every request in flight was answered in full');
    assert.deepEqual(await waitGone([oldPid, ...oldWorkers], 30000), [], 'the old daemon and its workers are gone');
    // The successor commits on its own once its workers are ready.
    const app = await eventually(async () => {
      const web = (await lsJson(box).catch(() => null))?.apps[0];
      return web?.status === 'online' && alive(box.daemonPid() ?? 0) && box.daemonPid() !== oldPid ? web : null;
    }, { timeout: 20000, what: 'web online under a daemon other than the killed one' });
    assert.equal(box.daemonPid(), successor, 'the pid file names the successor');
    assert.equal(app?.status, 'online');
    assert.equal((await httpGet(port)).status, 200);
  });
});

test('the old daemon gone before the successor got its state: the successor exits, `super start` recovers', async (t) => {
  const box = await sandbox(t);
  const port = await freePort();
  box.write('app.cjs', APP);
  // This test process plays the old daemon: it starts a successor and goes away (disconnects).
  const successor = spawn(process.execPath, [path.join(ROOT, 'lib', 'master', 'core', 'daemon.js')], {
    env: { ...process.env, SUPER_HOME: box.home, SUPERD_UPGRADE: '1' },
    stdio: ['ignore', 'ignore', 'pipe', 'ipc'],
  });
  let stderr = '';
  successor.stderr.on('data', (d) => (stderr += d));
  t.after(() => successor.kill('SIGKILL'));
  successor.disconnect();
  const code = await new Promise((resolve) => successor.on('exit', resolve));
  assert.equal(code, 1, stderr);
  assert.match(stderr, /went away before it sent its state/);
  assert.deepEqual(fs.readdirSync(box.home).filter((f) => /^(super\.sock|daemon\.pid)/.test(f)), [], 'no socket, no pid file left');

  const file = box.write('eco.yml', eco({ port, control: await freePort(), failFile: path.join(box.dir, 'none') }));
  await box.start(file);
  assert.equal((await httpGet(port)).status, 200);
});
