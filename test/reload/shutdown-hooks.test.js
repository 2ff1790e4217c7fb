// Apps can clean up on retirement: onShutdown(fn) runs after the last request was answered;
// shutdown_with_message also sends PM2's 'shutdown' message. stop, delete and the daemon's
// SIGTERM retire workers through the same graceful path (only the drain runs hooks). A
// fork-mode child with shutdown_with_message gets the message and time to exit by itself.
// One daemon for the tests that stop their own app (each deletes it at its end); the
// SIGTERM test ends its daemon, so it has its own.
import test from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { sandbox, freePort, httpGet, alive, waitGone, watchEvents, lsJson, FIXTURES } from '../helpers/harness.js';
import { fileSandbox, deleteAtEnd } from '../helpers/file-daemon.js';
import { waitForLog } from '../helpers/metrics.js';

const shared = await fileSandbox();

/** `op` (stop, delete) of `apps` over the control socket, as `super <op>` asks it. */
async function ask(box, op, apps) {
  const client = await box.client();
  try {
    return await client.request(op, { target: apps }, { timeout: 0 });
  } finally {
    client.close();
  }
}

/** App `name` (in `box`), whose worker records (in a marks file) its requests, answers and onShutdown hook. */
async function hooksApp(t, box, name, { withMessage = false } = {}) {
  const port = await freePort();
  const markFile = path.join(box.dir, `${name}.marks`);
  fs.writeFileSync(markFile, '');
  // shutdown-hooks imports superd/worker, which resolves from inside this package: run it in place.
  const eco = box.write(`${name}.yml`, `
apps:
  - name: ${name}
    script: ${path.join(FIXTURES, 'apps', 'shutdown-hooks.js')}
    shutdown_with_message: ${withMessage}
    env: { PORT: ${port}, MARK_FILE: ${JSON.stringify(markFile)}, SLOW_MS: 700 }
`);
  deleteAtEnd(t, box, [name]);
  await box.start(eco);
  const marks = () => fs.readFileSync(markFile, 'utf8').trim().split('\n').map((l) => l.split(' ')[0]);
  // A request the worker has received and answers 700 ms later.
  const inFlight = async () => {
    const answer = httpGet(port, '/', { timeout: 30000 });
    // The mark file has no event to wait on: poll it, bounded (30 s).
    for (let i = 0; i < 3000 && !marks().includes('received'); i++) await new Promise((r) => setTimeout(r, 10));
    assert.ok(marks().includes('received'), 'the request reached the worker');
    return answer;
  };
  const assertDrained = () => {
    const m = marks();
    assert.ok(m.includes('hook') && m.indexOf('answered') < m.indexOf('hook'), `drained, hook after the answer: ${m}`);
  };
  return { marks, inFlight, assertDrained };
}

test('stop: onShutdown runs after the in-flight request is answered; shutdown_with_message sends "shutdown"', async (t) => {
  const { marks, inFlight, assertDrained } = await hooksApp(t, shared, 'stopped', { withMessage: true });
  const answer = await inFlight();
  await ask(shared, 'stop', ['stopped']);
  assert.equal((await answer).body, 'done\n');
  assert.ok(marks().includes('message'), `PM2 shutdown message received: ${marks()}`);
  assertDrained();
});

test('delete: the request in flight is answered, then onShutdown runs', async (t) => {
  const { inFlight, assertDrained } = await hooksApp(t, shared, 'deleted');
  const answer = await inFlight();
  await ask(shared, 'delete', ['deleted']);
  assert.equal((await answer).body, 'done\n');
  assertDrained();
});

test('SIGTERM to the daemon: the request in flight is answered, then onShutdown runs, exit 0', async (t) => {
  const box = await sandbox(t);
  const { inFlight, assertDrained } = await hooksApp(t, box, 'hooks');
  const daemon = box.daemonPid();
  const answer = await inFlight();
  process.kill(daemon, 'SIGTERM');
  assert.equal((await answer).body, 'done\n');
  assert.deepEqual(await waitGone([daemon]), []);
  assertDrained();
  assert.match(fs.readFileSync(path.join(box.home, 'daemon.log'), 'utf8'), /"code":0,"msg":"daemon exit"/);
});

test('fork mode with shutdown_with_message: the child gets "shutdown" and exits by itself', async (t) => {
  const box = shared;
  box.write('job.cjs', `
setInterval(() => {}, 1000);
process.on('SIGINT', () => process.exit(9)); // kill_signal would say so
process.on('message', (m) => m === 'shutdown' && setTimeout(() => process.exit(0), 100));
`);
  const eco = box.write('job.yml', `apps:\n  - name: job\n    script: job.cjs\n    exec_mode: fork\n    shutdown_with_message: true\n`);
  deleteAtEnd(t, box, ['job']);
  await box.start(eco);
  const [w] = (await lsJson(box)).apps.find((a) => a.name === 'job').workers;
  const ev = await watchEvents(box, t);
  await ask(box, 'stop', ['job']);
  const stopped = await ev.waitFor((e) => e.app === 'job' && e.state === 'stopped');
  assert.deepEqual([stopped.code, stopped.signal], [0, null], 'exited on the message, before kill_signal');
  assert.equal(alive(w.pid), false);
});

test('a failing onShutdown hook is logged in daemon.log and the stop goes on', async (t) => {
  const box = shared;
  const port = await freePort();
  const eco = box.write('bad-hook.yml', `apps:\n  - name: bad-hook\n    script: ${path.join(FIXTURES, 'apps', 'failing-hook.js')}\n    env: { PORT: ${port} }\n`);
  deleteAtEnd(t, box, ['bad-hook']);
  await box.start(eco);
  await ask(box, 'stop', ['bad-hook']);
  const log = await waitForLog(box, /"msg":"onShutdown hook failed"/);
  assert.match(log, /cleanup exploded/);
});
