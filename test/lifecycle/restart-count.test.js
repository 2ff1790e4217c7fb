// A crash restart is counted when it starts, not when its backoff ends: a restart that
// waits at the daemon's start gate (SUPER_START_CONCURRENCY: here 1, held by another app's
// worker that never gets ready) and is cancelled there by `super stop` is no restart, so
// `ls` and daemon.log agree on the count (daemon.log has a "starting" line per restart).
import test from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { sandbox, lsJson, watchEvents, signal } from '../helpers/harness.js';

test('a crash restart cancelled at the start gate by a stop is not counted', async (t) => {
  const box = await sandbox(t);
  const env = { SUPER_START_CONCURRENCY: '1' };
  // churn exits 3 when told (SIGUSR2); hog boots, holding the gate, until told to be ready.
  fs.chmodSync(box.write('churn.sh', "#!/bin/sh\ntrap 'exit 3' USR2\nwhile :; do sleep 0.05; done\n"), 0o755);
  box.write('hog.js', "process.on('SIGUSR2', () => process.send('ready'));\nsetInterval(() => {}, 1000);\n");
  const churn = box.write('churn.yml', 'apps:\n  - name: churn\n    script: churn.sh\n    ready_on: spawn\n    min_uptime: 0\n    restart_delay: 0\n');
  const hog = box.write('hog.yml', 'apps:\n  - name: hog\n    script: hog.js\n    ready_on: ready\n    listen_timeout: 60s\n');

  const started = await box.cli(['start', churn], { env });
  assert.equal(started.code, 0, started.stderr);
  const ev = await watchEvents(box, t);
  const hogStart = box.cli(['start', hog], { env, timeout: 90000 }); // returns once hog is ready
  await ev.waitFor((e) => e.app === 'hog' && e.state === 'starting', 30000, 'hog booting (the gate taken)');

  const before = (await lsJson(box)).apps.find((a) => a.name === 'churn').workers[0];
  assert.equal(before.restarts, 0);
  signal(before.pid, 'SIGUSR2');
  await ev.waitFor((e) => e.app === 'churn' && e.state === 'exited', 30000, 'churn exited');
  // The restart (restart_delay 0) is now waiting at the gate; the stop cancels it.
  const during = (await lsJson(box)).apps.find((a) => a.name === 'churn').workers[0];
  assert.equal(during.status, 'exited', 'the restart waits at the gate: the hog still boots');
  assert.equal((await box.cli(['stop', 'churn'])).code, 0);

  const after = (await lsJson(box)).apps.find((a) => a.name === 'churn').workers[0];
  assert.deepEqual([after.status, after.restarts], ['stopped', 0], 'no restart happened, none is counted');
  const log = fs.readFileSync(path.join(box.home, 'daemon.log'), 'utf8').trim().split('\n').map((l) => JSON.parse(l));
  const starting = log.filter((r) => r.app === 'churn' && r.state === 'starting');
  assert.deepEqual(starting.map((r) => r.restarts ?? 0), [0], 'daemon.log has the first start only');

  // Once the hog is ready its start ends (and the gate is free).
  signal((await lsJson(box)).apps.find((a) => a.name === 'hog').workers[0].pid, 'SIGUSR2');
  const hogStarted = await hogStart;
  assert.equal(hogStarted.code, 0, hogStarted.stderr);
});
