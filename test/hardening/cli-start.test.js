// Issue 14, the CLI side of a start: a second concurrent `super start` of the same file on a
// fresh home reports "already running" (not E_BUSY); a worker that cannot listen (port in
// use) is shown by its first error line and where its whole stderr is, and its app is not
// "started", its port's holder is named and the app is rolled back; a crash-looping app is
// rolled back too; `super resurrect` with nothing
// saved starts no daemon; a start on a full SUPER_HOME says the disk is full.
import test from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { sandbox, tmpfsSandbox, freePort, httpGet, lsJson } from '../helpers/harness.js';
import { request } from '../helpers/requests.js';

test('super start on one daemon: concurrent starts, a port in use, a crash loop', { timeout: 90000 }, async (t) => {
  const box = await sandbox(t);
  const port = await freePort();
  box.fixture('http-server.js');
  box.write('crash.js', 'console.error("crashing"); process.exit(1);\n');

  await t.test('two concurrent starts of one file on a fresh home: started, and already running', async () => {
    const eco = box.write('web.yml', `apps:\n  - name: web\n    script: http-server.js\n    env: { PORT: ${port} }\n`);
    const runs = await Promise.all([box.cli(['start', eco]), box.cli(['start', eco])]);
    for (const r of runs) assert.equal(r.code, 0, r.stderr);
    const said = runs.map((r) => r.stdout.split('\n')[0]).sort();
    assert.deepEqual(said, ['started web', 'web is already running; use `super reload web` to reload it']);
    assert.equal((await httpGet(port)).status, 200);
  });

  await t.test('a port in use: its holder named, the app rolled back, nothing left crash-looping', async (t2) => {
    const taken = await freePort();
    const holder = net.createServer().listen(taken, '127.0.0.1');
    t2.after(() => holder.close());
    await new Promise((r) => holder.once('listening', r));
    const eco = box.write('taken.yml', `apps:\n  - name: taken\n    script: http-server.js\n    env: { PORT: ${taken} }\n`);
    const r = await box.cli(['start', eco]);
    assert.equal(r.code, 1);
    assert.doesNotMatch(r.stdout, /started taken/);
    assert.match(r.stderr, /E_START_FAILED: taken#\d .*\n {2}taken(#\d)? \| .*EADDRINUSE/);
    assert.match(r.stderr, new RegExp(`\n {2}port ${taken} is held by pid ${process.pid}: `));
    assert.match(r.stderr, /\n {2}taken was not kept: its start failed, so it was removed and nothing of it runs; fix it, then run the same super start again \(its stderr: .*\/taken-err\.log\)\n/);
    assert.equal((await lsJson(box)).apps.some((a) => a.name === 'taken'), false, 'not registered');

    // A registered, stopped app whose start fails stays registered, stopped.
    const free = await freePort();
    const again = box.write('again.yml', `apps:\n  - name: again\n    script: http-server.js\n    env: { PORT: ${free} }\n`);
    await box.start(again);
    await request(box, 'stop', { target: ['again'] });
    const squatter = net.createServer().listen(free, '127.0.0.1');
    t2.after(() => squatter.close());
    await new Promise((res) => squatter.once('listening', res));
    const r2 = await box.cli(['start', 'again']);
    assert.equal(r2.code, 1, r2.stderr);
    assert.match(r2.stderr, /\n {2}again is stopped: its start failed; fix it, then `super start again`/);
    const app = (await lsJson(box)).apps.find((a) => a.name === 'again');
    assert.deepEqual(app.workers.map((w) => w.status), ['stopped']);
  });

  await t.test('a crash-looping app is rolled back, and the next start tries again', async () => {
    const eco = box.write('loop.yml', 'apps:\n  - name: loop\n    script: crash.js\n    max_restarts: 1000\n    restart_delay: 100ms\n');
    assert.equal((await box.cli(['start', eco])).code, 1);
    const r = await box.cli(['start', eco]);
    assert.equal(r.code, 1);
    assert.doesNotMatch(r.stdout, /already/);
    assert.match(r.stderr, /E_START_FAILED: loop#0 /);
    assert.equal((await lsJson(box)).apps.some((a) => a.name === 'loop'), false);
  });
});

test('super resurrect with nothing saved starts no daemon', async (t) => {
  const box = await sandbox(t);
  const r = await box.cli(['resurrect']);
  assert.equal(r.code, 1);
  assert.match(r.stderr, /E_DUMP: no saved process list/);
  assert.equal(fs.existsSync(path.join(box.home, 'super.sock')), false, 'no daemon was started');
});

test('super start on a full SUPER_HOME says the disk is full', { skip: process.getuid?.() !== 0 && 'mounting a tmpfs needs root' }, async (t) => {
  const box = await tmpfsSandbox(t, '64k');
  fs.writeFileSync(path.join(box.home, 'daemon.err'), ''); // the CLI truncates it: no space needed
  try {
    fs.writeFileSync(path.join(box.home, 'filler'), Buffer.alloc(128 * 1024));
  } catch (err) {
    if (err.code !== 'ENOSPC') throw err;
  }
  box.fixture('idle.js');
  const r = await box.cli(['start', path.join(box.dir, 'idle.js')]);
  assert.equal(r.code, 3, r.stderr);
  assert.match(r.stderr, /E_DAEMON_START: .*ENOSPC: no space left on the device/);
});
