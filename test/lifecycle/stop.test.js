// Graceful stop: kill_signal, SIGKILL after kill_timeout, no orphans; fork mode.
import test from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import { sandbox, freePort, lsJson, alive, groupPids, watchEvents, waitGone } from '../helpers/harness.js';

test('an app that ignores signals is SIGKILLed after kill_timeout', async (t) => {
  const box = await sandbox(t);
  const port = await freePort();
  box.fixture('ignores-signals.js');
  const eco = box.write('eco.yml', `apps:\n  - name: stubborn\n    script: ignores-signals.js\n    kill_timeout: 700ms\n    env: { PORT: ${port} }\n`);
  await box.start(eco);
  const ev = await watchEvents(box, t);
  const [w] = (await lsJson(box)).apps[0].workers;
  const r = await box.cli(['stop', 'stubborn']);
  assert.equal(r.code, 0, r.stderr);
  const stopped = await ev.waitFor((e) => e.state === 'stopped');
  assert.equal(stopped.signal, 'SIGKILL');
  assert.equal(alive(w.pid), false);
});

test('stop reaps the processes a worker started (no orphans)', async (t) => {
  const box = await sandbox(t);
  const port = await freePort();
  box.fixture('spawns-children.js');
  const eco = box.write('eco.yml', `apps:\n  - name: parent\n    script: spawns-children.js\n    kill_timeout: 1s\n    env: { PORT: ${port} }\n`);
  await box.start(eco);
  const [w] = (await lsJson(box)).apps[0].workers;
  const group = groupPids(w.pid);
  assert.equal(group.length, 3, `worker + 2 sleeps in one group: ${group}`);
  assert.equal((await box.cli(['stop', 'parent'])).code, 0);
  assert.deepEqual(await waitGone(group, 30000), [], 'worker and grandchildren are gone');
});

test('exec_mode fork runs a non-Node executable, one child per instance', async (t) => {
  const box = await sandbox(t);
  box.fixture('script.sh');
  const eco = box.write('eco.yml', `apps:\n  - name: sh\n    script: script.sh\n    instances: 2\n    min_uptime: 200ms\n    out_file: ${path.join(box.dir, 'sh.out')}\n`);
  await box.start(eco);
  const ls = await lsJson(box);
  assert.deepEqual(ls.apps[0].workers.map((w) => [w.slot, w.status]), [[0, 'online'], [1, 'online']]);
  const pids = ls.apps[0].workers.map((w) => w.pid);
  for (const pid of pids) assert.match(fs.readFileSync(`/proc/${pid}/cmdline`, 'utf8'), /^sleep\x00300/);
  const out = fs.readFileSync(path.join(box.dir, 'sh.out'), 'utf8');
  assert.match(out, /shell worker slot=0 app=sh/);
  assert.match(out, /shell worker slot=1 app=sh/);
  // a crash is restarted in the same slot
  const ev = await watchEvents(box, t);
  process.kill(pids[0], 'SIGKILL');
  const back = await ev.waitFor((e) => e.slot === 0 && e.state === 'online', 30000);
  assert.notEqual(back.pid, pids[0]);
  assert.equal((await box.cli(['stop', 'sh'])).code, 0);
  assert.ok(!alive(back.pid) && !alive(pids[1]));
});

test('stop finishes an in-flight request before the worker goes', async (t) => {
  const box = await sandbox(t);
  const port = await freePort();
  // The worker sends its headers at once (so the test knows the request has reached it)
  // and the body when the test sends it SIGUSR2, once the stop is under way.
  box.write('slow.js', `const pending = [];
process.on('SIGUSR2', () => pending.splice(0).forEach((r) => r.end('done')));
require('node:http').createServer((q, r) => { r.flushHeaders(); pending.push(r); }).listen(${port}, '127.0.0.1');`);
  const eco = box.write('eco.yml', `apps:\n  - name: slow\n    script: slow.js\n    kill_timeout: 5s\n`);
  await box.start(eco);
  const ev = await watchEvents(box, t);
  const res = await new Promise((resolve, reject) => http.get({ host: '127.0.0.1', port, agent: false }, resolve).on('error', reject));
  const body = text(res);
  const stop = box.cli(['stop', 'slow']);
  const stopping = await ev.waitFor((e) => e.app === 'slow' && e.state === 'stopping', 30000, 'the worker stopping');
  process.kill(stopping.pid, 'SIGUSR2');
  assert.equal(res.statusCode, 200);
  assert.equal(await body, 'done');
  assert.equal((await stop).code, 0);
  const stopped = await ev.waitFor((e) => e.app === 'slow' && e.state === 'stopped', 30000, 'the worker stopped');
  assert.notEqual(stopped.signal, 'SIGKILL', 'drained, then stopped by kill_signal before kill_timeout');
});

/** The body of `res`, once it has ended. */
function text(res) {
  return new Promise((resolve, reject) => {
    let body = '';
    res.setEncoding('utf8');
    res.on('data', (d) => (body += d));
    res.on('end', () => resolve(body));
    res.on('error', reject);
    res.on('close', () => res.complete || reject(new Error(`the response was cut after ${JSON.stringify(body)}`)));
  });
}
