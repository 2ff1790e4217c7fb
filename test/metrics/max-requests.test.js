// max_requests (Passenger's and gunicorn's worker recycling): a worker that has answered
// that many HTTP requests is replaced ready-first, like max_memory_restart, and a client
// hitting the app all along sees no failed request. The limit, its jitter and the file's
// refusals: test/metrics/units.test.js and below.
import test from 'node:test';
import assert from 'node:assert/strict';
import http from 'node:http';
import path from 'node:path';
import { sandbox, freePort, lsJson, FIXTURES } from '../helpers/harness.js';
import { problems } from '../helpers/config-problems.js';
import { loadEcosystemText } from '../../lib/config/index.js';

/** GET / (a new connection: each worker gets its share under reuseport too): the pid that answered, or the failure. */
function get(agent, port) {
  return new Promise((resolve) => {
    const req = http.get({ host: '127.0.0.1', port, path: '/', agent, timeout: 10000 }, (res) => {
      let body = '';
      res.on('data', (d) => (body += d));
      res.on('end', () => resolve(res.statusCode === 200 ? { pid: Number(/pid=(\d+)/.exec(body)?.[1]) } : { error: `status ${res.statusCode}` }));
    });
    req.on('timeout', () => req.destroy(new Error('timeout')));
    req.on('error', (/** @type {NodeJS.ErrnoException} */ err) => resolve({ error: err.code ?? err.message }));
  });
}

test('max_requests: each worker that answered its requests is replaced ready-first; no request fails', async (t) => {
  const box = await sandbox(t);
  const port = await freePort();
  box.fixture('http-server.js');
  await box.start(box.write('eco.yml', [
    'metrics: { interval: 200ms }',
    'apps:',
    '  - name: recycled',
    '    script: http-server.js',
    '    instances: 2',
    '    max_requests: 40',
    `    env: { PORT: ${port} }`,
  ].join('\n')));
  const client = await box.client();
  t.after(() => client.close());
  const steps = [];
  client.onEvent((e) => { if (e.event === 'reload') steps.push(e.data); });
  await client.request('subscribe', { topics: ['reload'] });
  const first = (await lsJson(box)).apps[0].workers.map((w) => w.pid);

  // Two clients until both first workers are replaced (bounded: 20,000 requests).
  const results = [];
  const retired = () => first.every((pid) => steps.some((s) => s.step === 'retired' && s.pid === pid));
  const loop = async () => {
    while (!retired() && results.length < 20000) {
      results.push(await get(false, port));
      await new Promise((r) => setTimeout(r, 2));
    }
  };
  await Promise.all([loop(), loop()]);
  assert.ok(retired(), `both first workers retired after ${results.length} requests; steps: ${JSON.stringify(steps.slice(-6))}`);
  t.diagnostic(`${results.length} requests, ${results.filter((r) => r.error).length} failed`);
  assert.deepEqual(results.filter((r) => r.error), [], `no failed request of ${results.length}`);

  for (const pid of first) {
    const ready = steps.find((s) => s.step === 'ready' && s.oldPid === pid);
    assert.ok(ready, `a replacement of ${pid} was ready before it left`);
    const [, answered] = /^max_requests: answered (\d+) requests \(max_requests: 40 for this worker\)$/.exec(ready.reason) ?? [];
    assert.ok(Number(answered) >= 40, `${pid}: ${ready.reason}`);
    // It answered them: its requests, as the clients saw them, are at least the limit.
    assert.ok(results.filter((r) => r.pid === pid).length >= 40, `${pid} answered its 40 requests before it was replaced`);
  }
  const now = (await lsJson(box)).apps[0].workers;
  assert.equal(now.length, 2);
  assert.ok(now.every((w) => w.status === 'online' && !first.includes(w.pid)), 'two new workers serve');
});

test('max_requests: a Node app only, with its agent\'s reports; max_requests_jitter needs it', () => {
  const file = path.join(FIXTURES, 'apps', 'eco.yml');
  const app = (keys) => loadEcosystemText(`apps:\n  - name: a\n    script: http-server.js\n${keys.map((k) => `    ${k}\n`).join('')}`, file, { cpus: 2 });
  assert.deepEqual([app(['max_requests: 10000', 'max_requests_jitter: 500']).apps[0].max_requests, app(['max_requests: 10000', 'max_requests_jitter: 500']).apps[0].max_requests_jitter], [10000, 500]);
  const none = problems(() => app(['max_requests: 100', 'interpreter: none'])); // (the script is refused too: it is not executable)
  assert.ok(none.some((p) => p.endsWith('apps[0].max_requests: needs superd\'s agent to count the requests: a Node app (interpreter is none)')), none.join('\n'));
  assert.match(problems(() => app(['max_requests: 100', 'metrics_interval: 0']))[0], /apps\[0\]\.max_requests: needs the agent's reports, and metrics_interval: 0 turns them off/);
  assert.match(problems(() => app(['max_requests_jitter: 5']))[0], /apps\[0\]\.max_requests_jitter: needs max_requests/);
  assert.match(problems(() => app(['max_requests: 0']))[0], /apps\[0\]\.max_requests/);
});
