// Issue 20, a cold `super start <file>`: when SUPER_HOME exists, the CLI launches the daemon
// while it still checks the file, held before it touches SUPER_HOME (lib/master/core/launch-gate.js).
// A refused file leaves no daemon, no pid file, no socket and no process behind; a good one
// starts its apps, and the hold's variable does not reach their workers; two held launches
// at once still make one daemon.
import test from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { sandbox, freePort, httpGet, lsJson } from '../helpers/harness.js';
import { killDaemon } from '../helpers/requests.js';

/** Live processes started with SUPER_HOME=home (the CLI has exited: only a daemon or its workers). */
function processesOf(home) {
  return fs.readdirSync('/proc').filter((p) => /^\d+$/.test(p)).filter((p) => {
    try {
      return fs.readFileSync(`/proc/${p}/environ`, 'utf8').split('\0').includes(`SUPER_HOME=${home}`);
    } catch {
      return false; // gone meanwhile, or not ours to read
    }
  });
}

test('cold start with an existing SUPER_HOME: a refused file leaves nothing, a good one runs', { timeout: 60000 }, async (t) => {
  const box = await sandbox(t);
  fs.mkdirSync(box.home, { mode: 0o700 });
  box.fixture('http-server.js');

  await t.test('a bad file: exit 2, its problem, and no daemon, pid file, socket or process', async () => {
    const bad = box.write('bad.yml', 'apps:\n  - name: web\n    script: http-server.js\n    instances: many\n');
    const r = await box.cli(['start', bad]);
    assert.equal(r.code, 2, r.stderr);
    assert.match(r.stderr, /^super: E_CONFIG: 1 problem in .*bad\.yml\n {2}.*bad\.yml:4:\d+: apps\[0\]\.instances: /);
    assert.equal(r.stdout, '');
    assert.equal(fs.existsSync(path.join(box.home, 'daemon.pid')), false, 'no pid file');
    assert.equal(fs.existsSync(path.join(box.home, 'super.sock')), false, 'no control socket');
    assert.deepEqual(processesOf(box.home), [], 'the held daemon is gone when the CLI exits');
  });

  await t.test('a good file: started and serving; the hold is not in the workers\' environment', async () => {
    const port = await freePort();
    const eco = box.write('web.yml', `apps:\n  - name: web\n    script: http-server.js\n    instances: 1\n    env: { PORT: ${port} }\n`);
    const r = await box.cli(['start', eco]);
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stdout, /^started web\n/);
    assert.match((await httpGet(port)).body, /app=web/);
    const pids = (await lsJson(box)).apps[0].workers.map((w) => w.pid);
    assert.equal(pids.length, 1);
    const environ = (pid) => fs.readFileSync(`/proc/${pid}/environ`, 'utf8').split('\0');
    assert.ok(environ(box.daemonPid()).includes('SUPER_LAUNCH_GATE=1'), 'the daemon was launched held, while the file was checked');
    for (const pid of pids) assert.ok(!environ(pid).some((v) => v.startsWith('SUPER_LAUNCH_GATE=')), `worker ${pid}`);
  });

  await t.test('two held launches at once (after super kill): one daemon runs both files', async () => {
    await killDaemon(box);
    const [p1, p2] = [await freePort(), await freePort()];
    const a = box.write('a.yml', `apps:\n  - name: a\n    script: http-server.js\n    env: { PORT: ${p1} }\n`);
    const b = box.write('b.yml', `apps:\n  - name: b\n    script: http-server.js\n    env: { PORT: ${p2} }\n`);
    const runs = await Promise.all([box.cli(['start', a]), box.cli(['start', b])]);
    for (const r of runs) assert.equal(r.code, 0, r.stderr);
    assert.deepEqual((await lsJson(box)).apps.map((x) => x.name).sort(), ['a', 'b']);
    assert.match((await httpGet(p1)).body, /app=a/);
    assert.match((await httpGet(p2)).body, /app=b/);
    const daemons = processesOf(box.home).filter((p) => fs.readFileSync(`/proc/${p}/cmdline`, 'utf8').includes('lib/master/core/daemon.js'));
    assert.deepEqual(daemons.map(Number), [box.daemonPid()], 'one daemon, the one daemon.pid names');
  });
});
