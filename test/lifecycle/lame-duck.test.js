// Lame duck (shutdown_delay): a stop, a scale-down and a SIGTERM to `super run` first make
// the affected workers not ready (GET /readyz: 503 for a stopping app) while they go on
// serving, for shutdown_delay; only then do they drain and exit. Real daemon, real
// workers, the daemon's metrics listener as a load balancer's probe reads it.
import test from 'node:test';
import assert from 'node:assert/strict';
import path from 'node:path';
import { sandbox, freePort, httpGet, lsJson, waitGone, alive, ROOT } from '../helpers/harness.js';
import { superProcess } from '../helpers/super-process.js';
import { eventually } from '../helpers/wait.js';

const HELLO = path.join(ROOT, 'examples', 'hello', 'server.js');

/** An ecosystem of one hello app on `port`, the metrics listener on `mport`. */
function ecosystem(box, { port, mport, instances = 2, delay = null }) {
  return box.write('eco.yml', [
    `metrics: { listen: 127.0.0.1:${mport}, interval: 300ms }`,
    'apps:',
    '  - name: hello',
    `    script: ${HELLO}`,
    `    instances: ${instances}`,
    `    env: { PORT: ${port} }`,
    ...(delay ? [`    shutdown_delay: ${delay}`] : []),
  ].join('\n'));
}

const readyz = (mport) => httpGet(mport, '/readyz?app=hello').then((r) => r.status, (err) => err.code);
const workerPid = (r) => Number(/\(pid (\d+)\)/.exec(r.body)?.[1]);

/**
 * Waits until /readyz says 503, then checks that the app still answers, from one of `pids`
 * (the workers on their way out): the lame duck. Returns the pid that answered.
 */
async function servesWhileNotReady(port, mport, pids) {
  await eventually(async () => (await readyz(mport)) === 503, { timeout: 20000, every: 25, what: '/readyz to answer 503' });
  const r = await httpGet(port, '/');
  assert.equal(r.status, 200, 'still served while not ready');
  assert.ok(pids.includes(workerPid(r)), `answered by a worker on its way out (${workerPid(r)} of ${pids})`);
  assert.ok(pids.every(alive), 'no worker drained yet');
  return workerPid(r);
}

test('super stop with shutdown_delay: /readyz answers 503 while the workers still serve, then they drain', async (t) => {
  const box = await sandbox(t);
  const [port, mport] = [await freePort(), await freePort()];
  await box.start(ecosystem(box, { port, mport, delay: '2s' }));
  assert.equal(await readyz(mport), 200);
  const pids = (await lsJson(box)).apps[0].workers.map((w) => w.pid);

  const client = await box.client();
  t.after(() => client.close());
  const stopped = client.request('stop', { target: ['hello'] }, { timeout: 0 });
  await servesWhileNotReady(port, mport, pids);
  const ls = await lsJson(box);
  assert.ok(ls.apps[0].workers.every((w) => w.status === 'online'), 'the workers are online (serving) during the delay');
  assert.deepEqual((await stopped).apps, ['hello']);
  assert.deepEqual(await waitGone(pids), [], 'drained and exited after the delay');
  assert.equal((await httpGet(mport, '/readyz')).status, 200, 'a stopped app is not counted by /readyz (every app not stopped)');
});

test('scale down with shutdown_delay: the retired worker serves on as a lame duck, then drains; the app stays ready', async (t) => {
  const box = await sandbox(t);
  const [port, mport] = [await freePort(), await freePort()];
  await box.start(ecosystem(box, { port, mport, delay: '1500ms' }));
  const [keep, gone] = (await lsJson(box)).apps[0].workers.map((w) => w.pid);
  const scaled = box.cli(['scale', 'hello', '1']);
  // The scale answers once the retired worker has exited; until then it serves beside the other.
  const seen = new Set();
  await eventually(async () => {
    seen.add(workerPid(await httpGet(port, '/')));
    return seen.has(gone) && !(await lsJson(box)).apps[0].workers.some((w) => w.pid === gone);
  }, { timeout: 20000, every: 25, what: 'the retired worker to serve after leaving the slots' });
  assert.equal(await readyz(mport), 200, 'desired is now 1: the app is ready');
  assert.ok(alive(gone), 'the retired worker is still there (lame duck)');
  const r = await scaled;
  assert.equal(r.code, 0, r.stderr);
  assert.deepEqual(await waitGone([gone]), []);
  assert.ok(alive(keep));
});

test('SIGTERM to super run in a Kubernetes pod: 5 s of not ready while serving (the default), then drain and exit 0', async (t) => {
  const box = await sandbox(t);
  const [port, mport] = [await freePort(), await freePort()];
  const eco = ecosystem(box, { port, mport, instances: 1 });
  const run = superProcess(box, t, ['run', eco], { env: { KUBERNETES_SERVICE_HOST: '10.0.0.1' } });
  await run.waitFor(/hello online/, { stream: 'err' });
  assert.equal(await readyz(mport), 200);
  const pids = (await lsJson(box)).apps[0].workers.map((w) => w.pid);
  run.child.kill('SIGTERM');
  await servesWhileNotReady(port, mport, pids);
  const exit = await run.exited;
  assert.deepEqual(exit, { code: 0, signal: null }, run.stderr);
  assert.deepEqual(await waitGone(pids), []);
});
