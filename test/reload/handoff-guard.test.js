// The holes of node:cluster that lib/master/process/cluster-internals/handoff-guard.js closes. A connection
// the daemon (the cluster primary) hands to a worker that dies, or that closes its server,
// is answered or closed: never left hanging (without the guard, the first two scenarios
// leave clients hanging until their timeout). A worker disconnected while its first
// listen() is being bound: the stop ends (without the guard, it runs to its deadline).
import test from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { sandbox, freePort, lsJson, watchEvents } from '../helpers/harness.js';
import { startLoad, answeredBy } from '../helpers/load.js';
import { eventually } from '../helpers/wait.js';
import { waitForLog } from '../helpers/metrics.js';
import { superProcess } from '../helpers/super-process.js';

// A hung connection shows as the strict client's 'timeout' cause.
const HANG_MS = 4000;

async function setup(t, instances) {
  const box = await sandbox(t);
  const port = await freePort();
  box.fixture('http-server.js');
  const file = box.write('eco.yml', `apps:
  - name: web
    script: http-server.js
    instances: ${instances}
    max_restarts: 1000
    env: { PORT: ${port} }
`);
  await box.start(file);
  // New connections all the time: every one goes through the primary's handoff.
  const answers = answeredBy();
  const load = startLoad({ port, connections: 8, keepAlive: false, timeout: HANG_MS, maxMs: 90000, observer: answers.observer });
  t.after(() => load.stop());
  return { box, load, answers };
}

test('workers SIGKILLed under new-connection load: no connection is left hanging', async (t) => {
  const { box, load, answers } = await setup(t, 3);
  const ev = await watchEvents(box, t);
  // The load runs across every kill: each victim answered it before its SIGKILL, and the
  // workers at the end (the replacements) answered it too (pids, not a request count).
  for (let k = 0; k < 6; k++) {
    const workers = (await lsJson(box)).apps[0].workers;
    const victim = workers[k % workers.length];
    await answers.reached([victim.pid], `victim ${k + 1}, before its SIGKILL`);
    const from = ev.seen.length; // an earlier replacement of this slot is not this one
    process.kill(victim.pid, 'SIGKILL');
    await ev.waitFor((e) => ev.seen.indexOf(e) >= from && e.slot === victim.slot && e.state === 'online' && e.pid !== victim.pid, 30000, `slot ${victim.slot} back`);
  }
  await answers.reached((await lsJson(box)).apps[0].workers.map((w) => w.pid), 'the workers after the last kill');
  const r = await load.stop();
  t.diagnostic(`${r.sent} requests, failures ${JSON.stringify(r.errors)}`);
  assert.equal(r.errors.timeout, undefined, `hung connections: ${JSON.stringify(r.errors)}`);
});

test('an app stopped and started under new-connection load: refused or closed, never hanging', async (t) => {
  const { box, load, answers } = await setup(t, 2);
  const client = await box.client();
  t.after(() => client.close());
  for (let k = 0; k < 4; k++) {
    await client.request('restart', { target: ['web'] }, { timeout: 0 });
    // the new workers serve the load before the next stop
    await answers.reached((await lsJson(box)).apps[0].workers.map((w) => w.pid), `the workers after restart ${k + 1}`);
  }
  const r = await load.stop();
  t.diagnostic(`${r.sent} requests, failures ${JSON.stringify(r.errors)}`);
  assert.equal(r.errors.timeout, undefined, `hung connections: ${JSON.stringify(r.errors)}`);
});

// Hole 4: the worker's first listen() query and its 'drained' reach the daemon in one read
// (the daemon is held with SIGSTOP while the worker sends both), so the daemon is asked to
// disconnect the worker before Node has bound the server the query asked for. A daemon's
// own stop does not wait for a start to end (`super stop` of one app does), so `super run`
// stopped with SIGINT is the case.
test('a worker stopped while its first listen() is being bound: the stop ends at once with exit 0, no cluster assertion', async (t) => {
  const box = await sandbox(t);
  const port = await freePort();
  box.write('late.cjs', `
const fs = require('node:fs');
const http = require('node:http');
const path = require('node:path');
const at = (f) => path.join(__dirname, f);
fs.writeFileSync(at('booting'), '');
// Blocked until the test says go (bounded): the daemon's 'shutdown' waits in the channel.
const until = Date.now() + 30000;
const nap = new Int32Array(new SharedArrayBuffer(4));
while (!fs.existsSync(at('go')) && Date.now() < until) Atomics.wait(nap, 0, 0, 10);
// The query goes out now; the drain that follows finds nothing listening and answers at once.
http.createServer((req, res) => res.end('ok')).listen(${port}, '127.0.0.1');
// Runs in that drain; the file appears once 'drained' has been sent after it.
globalThis.superd.onShutdown(() => setImmediate(() => fs.writeFileSync(at('drained-sent'), '')));
`);
  // Short bounds: without the guard the stop runs to the daemon's deadline (2 s + 2 s + 5 s).
  const file = box.write('late.yml', 'apps:\n  - name: late\n    script: late.cjs\n    drain_timeout: 2s\n    kill_timeout: 2s\n');
  const run = superProcess(box, t, ['run', file]);
  const exists = (name) => () => fs.existsSync(path.join(box.dir, name));
  await eventually(exists('booting'), { timeout: 30000, what: 'the worker to boot' });
  run.child.kill('SIGINT');
  await waitForLog(box, /late#0 starting -> stopping/, 15000); // written after the 'shutdown' went out
  process.kill(run.child.pid, 'SIGSTOP');
  try {
    box.write('go', '');
    await eventually(exists('drained-sent'), { timeout: 15000, what: "the worker's query and 'drained'" });
  } finally {
    process.kill(run.child.pid, 'SIGCONT');
  }
  // Without the guard the worker's exit is lost, and the stop ends at its deadline with exit 1.
  const from = Date.now();
  assert.deepEqual(await run.exited, { code: 0, signal: null }, run.stderr);
  t.diagnostic(`stopped ${Date.now() - from} ms after the daemon went on`);
  assert.doesNotMatch(fs.readFileSync(path.join(box.home, 'daemon.log'), 'utf8'), /Resource leak|RoundRobinHandle/);
});
