// $SUPER_HOME/daemon.log, read as a user (or a log shipper) would: JSON lines that record
// a worker's exit with its code or signal and the restart with its reason, and that rotate
// at logs.max_size like app logs (rename to daemon.log.1, a new daemon.log) losing no line.
import test from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { sandbox, freePort, httpGet, lsJson, watchEvents } from '../helpers/harness.js';
import { eventually } from '../helpers/wait.js';

/** Every line of daemon.log (and of daemon.log.N, oldest first), parsed; throws on a bad line. */
function daemonLog(home) {
  const names = fs.readdirSync(home).filter((n) => /^daemon\.log(\.\d+)?$/.test(n));
  const age = (n) => Number(n.split('.')[2] ?? 0);
  const records = [];
  for (const name of names.sort((a, b) => age(b) - age(a))) {
    const text = fs.readFileSync(path.join(home, name), 'utf8');
    if (!text) continue;
    assert.ok(text.endsWith('\n'), `${name} ends with a whole line`);
    // `in`: the file a line was read from (records have a `file` of their own)
    for (const line of text.slice(0, -1).split('\n')) records.push({ ...JSON.parse(line), in: name });
  }
  return records;
}

test('daemon.log records a worker\'s exit with its signal or code, and the restart with its reason', async (t) => {
  const box = await sandbox(t);
  const port = await freePort();
  box.write('exits.js', `
import http from 'node:http';
http.createServer((req, res) => {
  if (req.url === '/exit3') res.end('bye', () => process.exit(3));
  else res.end(String(process.pid));
}).listen(Number(process.env.PORT), '127.0.0.1');
`);
  const eco = box.write('eco.yml', `apps:\n  - name: web\n    script: exits.js\n    env: { PORT: ${port} }\n`);
  await box.start(eco);
  const ev = await watchEvents(box, t);
  const first = (await lsJson(box)).apps[0].workers[0].pid;

  process.kill(first, 'SIGKILL');
  const second = (await ev.waitFor((e) => e.state === 'online' && e.pid !== first, 30000, 'a replacement after kill -9')).pid;
  await httpGet(port, '/exit3');
  await ev.waitFor((e) => e.state === 'online' && e.pid !== first && e.pid !== second, 30000, 'a replacement after exit code 3');

  const restartAfter = (how) => (r) => r.app === 'web' && r.slot === 0 && r.state === 'starting' && r.reason === `restart after crash (exited with ${how})`;
  // pino writes asynchronously: the event can come before the line is on disk.
  await eventually(() => daemonLog(box.home).find(restartAfter('code 3')), { what: 'the second restart in daemon.log' });
  const records = daemonLog(box.home).filter((r) => r.app === 'web');
  const at = (pred, what) => {
    const i = records.findIndex(pred);
    assert.ok(i >= 0, `daemon.log has ${what}`);
    return i;
  };
  const killed = at((r) => r.state === 'exited' && r.signal === 'SIGKILL', 'the exit by SIGKILL');
  const restart1 = at(restartAfter('signal SIGKILL'), 'the restart after SIGKILL');
  const crashed = at((r) => r.state === 'exited' && r.code === 3, 'the exit with code 3');
  const restart2 = at(restartAfter('code 3'), 'the restart after code 3');
  assert.ok(killed < restart1 && restart1 < crashed && crashed < restart2, 'exit, restart, exit, restart, in that order');

  const k = records[killed];
  assert.deepEqual([k.msg, k.slot, k.prev, k.code, k.level, k.pid], ['web#0 online -> exited', 0, 'online', null, 30, first]);
  assert.ok(Number.isInteger(k.daemon_pid) && k.daemon_pid !== first, 'the daemon\'s own pid has a key of its own');
  assert.ok(Number.isFinite(k.uptime_ms) && Number.isFinite(Date.parse(k.time)), 'with its uptime and time');
  assert.deepEqual([records[restart1].msg, records[restart1].restarts, records[restart1].pid], ['web#0 exited -> starting', 1, second]);
  assert.deepEqual([records[crashed].msg, records[crashed].signal, records[crashed].pid], ['web#0 online -> exited', null, second]);
  assert.equal(records[restart2].restarts, 2);
});

test('daemon.log rotates at logs.max_size (daemon.log.1, then a new file) and loses no line', async (t) => {
  const box = await sandbox(t);
  // A worker that exits after 0.1 s, restarted 50 ms later: three daemon.log lines a cycle
  // (starting, online, exited), each starting line numbered by `restarts`.
  const script = box.write('exit3.sh', '#!/bin/sh\nsleep 0.1\nexit 3\n');
  fs.chmodSync(script, 0o755);
  const eco = box.write('eco.yml', `
logs:
  max_size: 16K
  retain: 50
apps:
  - name: churn
    script: exit3.sh
    ready_on: spawn
    min_uptime: 0
    restart_delay: 50ms
`);
  await box.start(eco);
  const ev = await watchEvents(box, t);
  const log = path.join(box.home, 'daemon.log');
  // The daemon checks daemon.log's size every 5 s: wait for the first rotation, then for
  // 20 more restarts written to the new file.
  await eventually(() => fs.existsSync(`${log}.1`), { timeout: 30000, what: 'daemon.log.1' });
  const at = (await lsJson(box)).apps[0].workers[0].restarts;
  await ev.waitFor((e) => e.state === 'starting' && e.restarts >= at + 20, 60000, '20 more restarts');
  assert.equal((await box.cli(['stop', 'churn'])).code, 0);
  await eventually(() => daemonLog(box.home).some((r) => r.app === 'churn' && r.state === 'stopped'), { what: 'the stop in daemon.log' });

  const records = daemonLog(box.home); // every line of every file parses as JSON
  const files = [...new Set(records.map((r) => r.in))];
  assert.ok(files.includes('daemon.log.1') && files.includes('daemon.log'), `rotated: ${files.join(' ')}`);
  assert.ok(fs.statSync(`${log}.1`).size >= 16 * 1024, 'rotated once it reached max_size');
  assert.ok(records.some((r) => r.in === 'daemon.log' && r.msg === 'daemon log rotated'), 'the rotation is logged in the new file');
  // Each restart is logged once, none missing, across the files.
  const restarts = records.filter((r) => r.app === 'churn' && r.state === 'starting' && r.restarts > 0).map((r) => r.restarts);
  const last = (await lsJson(box)).apps[0].workers[0].restarts;
  assert.ok(last >= at + 20);
  assert.deepEqual(restarts, Array.from({ length: last }, (_, i) => i + 1), 'restarts 1..N, once each, in order');
  // In a file newer than the first one rotated: on a slow machine daemon.log may have
  // rotated again (into daemon.log.1, the first rotated file then daemon.log.2) by the end.
  const oldest = records[0].in;
  assert.ok(records.filter((r) => r.in !== oldest).some((r) => r.restarts > at), `restarts after the rotation are in a newer file than ${oldest}`);
});
