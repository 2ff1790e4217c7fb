// max_requests (Passenger's and gunicorn's worker recycling): a worker that has answered
// that many HTTP requests is replaced ready-first, like max_memory_restart, and a client
// hitting the app all along sees no failed request. The limit, its jitter and the file's
// refusals: test/metrics/units.test.js and below.
import test from 'node:test';
import assert from 'node:assert/strict';
import path from 'node:path';
import { sandbox, freePort, lsJson, FIXTURES } from '../helpers/harness.js';
import { problems } from '../helpers/config-problems.js';
import { startLoad, answeredBy } from '../helpers/load.js';
import { eventually } from '../helpers/wait.js';
import { loadEcosystemText } from '../../lib/config/index.js';

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

  // Two connections, a new one per request (each worker gets its share under reuseport too),
  // until both first workers are retired (bounded: 20,000 requests, 60 s).
  const answers = answeredBy();
  const load = startLoad({ port, connections: 2, keepAlive: false, maxRequests: 20000, observer: answers.observer });
  t.after(() => load.stop());
  const retired = () => first.every((pid) => steps.some((s) => s.step === 'retired' && s.pid === pid));
  await eventually(() => retired() || load.stats.sent >= 20000, { timeout: 60000, what: 'both first workers retired', last: () => JSON.stringify(steps.slice(-6)) });
  const res = await load.stop();
  t.diagnostic(`${res.sent} requests, ${res.failed + res.non2xx} failed; answers by pid ${JSON.stringify(Object.fromEntries(answers.pids))}`);
  assert.ok(retired(), `both first workers retired after ${res.sent} requests; steps: ${JSON.stringify(steps.slice(-6))}`);
  assert.equal(res.failed, 0, `failed requests: ${JSON.stringify(res.errors)}`);
  assert.equal(res.non2xx, 0, JSON.stringify(res.statuses));

  for (const pid of first) {
    const ready = steps.find((s) => s.step === 'ready' && s.oldPid === pid);
    assert.ok(ready, `a replacement of ${pid} was ready before it left`);
    const [, answered] = /^max_requests: answered (\d+) requests \(max_requests: 40 for this worker\)$/.exec(ready.reason) ?? [];
    assert.ok(Number(answered) >= 40, `${pid}: ${ready.reason}`);
    // It answered them: its requests, as the clients saw them, are at least the limit.
    assert.ok((answers.pids.get(pid) ?? 0) >= 40, `${pid} answered its 40 requests before it was replaced`);
  }
  const now = (await lsJson(box)).apps[0].workers;
  assert.equal(now.length, 2);
  assert.ok(now.every((w) => w.status === 'online' && !first.includes(w.pid)), 'two new workers serve');
});

test('max_requests: a Node app only, with its agent\'s reports; max_requests_jitter needs it', () => {
  const file = path.join(FIXTURES, 'apps', 'eco.yml');
  const app = (keys) => loadEcosystemText(`apps:\n  - name: a\n    script: http-server.js\n${keys.map((k) => `    ${k}\n`).join('')}`, file, { cpus: 2 });
  const set = app(['max_requests: 10000', 'max_requests_jitter: 500']).apps[0];
  assert.deepEqual([set.max_requests, set.max_requests_jitter], [10000, 500]);
  const none = problems(() => app(['max_requests: 100', 'interpreter: none'])); // (the script is refused too: it is not executable)
  assert.ok(none.some((p) => p.endsWith('apps[0].max_requests: needs superd\'s agent to count the requests: a Node app (interpreter is none)')), none.join('\n'));
  assert.match(problems(() => app(['max_requests: 100', 'metrics_interval: 0']))[0], /apps\[0\]\.max_requests: needs the agent's reports, and metrics_interval: 0 turns them off/);
  assert.match(problems(() => app(['max_requests_jitter: 5']))[0], /apps\[0\]\.max_requests_jitter: needs max_requests/);
  assert.match(problems(() => app(['max_requests: 0']))[0], /apps\[0\]\.max_requests/);
});
