// Issue 39, round-robin with a new connection per request: while an app's handoff queue in
// the daemon stands, the daemon answers a connection that would wait behind others itself
// (docs/overload.md, "Refused by the daemon"): the app's status with Retry-After and an
// empty body (the agent's refusal has a text body), none timed out, counted in the app's
// shed figure (also when the worker dies before its next report); the app keeps serving;
// an app without overload: is never refused.
import test from 'node:test';
import assert from 'node:assert/strict';
import { sandbox, freePort, httpGet, lsJson } from '../helpers/harness.js';
import { openLoop } from '../helpers/open-loop-requests.js';
import { eventually } from '../helpers/wait.js';

/** An answer's outcome: 'daemon' for the daemon's refusal (empty body, Connection: close), else its status. */
const byWho = (res) => (res.statusCode === 503 && res.headers['content-length'] === '0' && res.headers.connection === 'close' ? 'daemon' : res.statusCode ?? 0);

test('round-robin, a new connection per request past capacity: the daemon refuses while its handoff queue stands', async (t) => {
  const box = await sandbox(t);
  const [portA, portB] = [await freePort(), await freePort()];
  box.fixture('overload-lab.js');
  const eco = box.write('eco.yml', [
    'scheduling: round-robin',
    'apps:',
    '  - name: queue',
    '    script: overload-lab.js',
    '    instances: 1',
    `    env: { PORT: ${portA} }`,
    '    overload: { max_queue_wait: 200ms, retry_after: 2s }',
    '  - name: plain',
    '    script: overload-lab.js',
    '    instances: 1',
    `    env: { PORT: ${portB} }`,
  ].join('\n'));
  await box.start(eco);

  await t.test('past capacity: some refused by the daemon, none timed out, counted as shed, the app serves on', async (st) => {
    // 20 ms of CPU a request: at most 50/s on a free core; 200 new connections a second for 2 s.
    const counts = await openLoop(portA, '/burn?ms=20', 200, 400, { label: byWho });
    st.diagnostic(JSON.stringify(counts));
    assert.ok(Object.keys(counts).every((k) => ['200', '503', 'daemon'].includes(k)), JSON.stringify(counts));
    assert.ok(counts.daemon > 0 && counts[200] > 0, JSON.stringify(counts));
    const refused = counts.daemon + (counts[503] ?? 0);
    const answer = await httpGet(portA, '/');
    assert.equal(answer.status, 200);
    // The daemon's refusals are in the worker's shed count, with the agent's own.
    const shed = await eventually(async () => {
      const m = (await lsJson(box)).apps.find((a) => a.name === 'queue').workers[0].metrics;
      return m.shed_requests >= refused && m.shed_requests;
    }, { timeout: 10000, what: `shed_requests to reach the ${refused} refused` });
    assert.ok(shed <= 400, `shed_requests ${shed}`);
  });

  await t.test('the accept time goes only to a worker that reads it (max_queue_wait)', async () => {
    assert.equal((await httpGet(portA, '/accepted-at')).body, 'stamped\n');
    assert.equal((await httpGet(portB, '/accepted-at')).body, 'none\n');
  });

  await t.test('an app without overload: is never refused by the daemon', async () => {
    // Its queue stands as the other's did (4x its capacity), but 1 s of work at most (50
    // requests of 20 ms): all served within the clients' timeout, even on a busy host.
    const counts = await openLoop(portB, '/burn?ms=20', 200, 50, { label: byWho });
    assert.deepEqual(counts, { 200: 50 });
  });
});

test('the daemon\'s refusals for a worker that dies before its next report stay in its slot\'s shed count', async (t) => {
  const box = await sandbox(t);
  const [port, metricsPort] = [await freePort(), await freePort()];
  box.fixture('overload-lab.js');
  // metrics_interval 0: the agent never reports, so the count is the daemon's refusals alone,
  // and nothing takes them from the worker before it dies.
  await box.start(box.write('eco.yml', [
    'scheduling: round-robin',
    `metrics: { listen: ${metricsPort} }`,
    'apps:',
    '  - name: queue',
    '    script: overload-lab.js',
    '    instances: 1',
    '    metrics_interval: 0',
    `    env: { PORT: ${port} }`,
    '    overload: { max_queue_wait: 200ms, retry_after: 2s }',
  ].join('\n')));
  const workerOf = async () => (await lsJson(box)).apps[0].workers[0];
  const { pid } = await workerOf();
  // 20 ms of CPU a request, 200 new connections a second for 1.5 s: 4x what a core serves.
  const counts = await openLoop(port, '/burn?ms=20', 200, 300, { label: byWho });
  assert.ok(counts.daemon > 0, JSON.stringify(counts));
  process.kill(pid, 'SIGKILL');
  await eventually(async () => {
    const w = await workerOf();
    return w.pid !== pid && w.status === 'online';
  }, { timeout: 20000, what: 'the worker to be restarted' });
  const shed = /^superd_worker_shed_requests_total\{app="queue",slot="0"\} (\d+)$/m.exec((await httpGet(metricsPort, '/metrics')).body);
  assert.equal(Number(shed?.[1]), counts.daemon, `${shed?.[0]}; refused by the daemon: ${JSON.stringify(counts)}`);
});
