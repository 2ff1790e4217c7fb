// Issue 4: a worker stuck in while(true) stops reporting; after unresponsive_timeout the
// daemon kills it (SIGKILL to its group), the crash path restarts the slot, and the daemon
// log says why with the last metrics it saw.
import test from 'node:test';
import assert from 'node:assert/strict';
import { sandbox, freePort, httpGet, lsJson, watchEvents } from '../helpers/harness.js';
import { watchMetrics, waitForLog } from '../helpers/metrics.js';

test('unresponsive_timeout: a worker stuck in while(true) is killed and replaced', async (t) => {
  const box = await sandbox(t);
  const port = await freePort();
  box.fixture('loop-lab.js');
  const eco = box.write('eco.yml', `apps:\n  - name: stuck\n    script: loop-lab.js\n    metrics_interval: 200ms\n    unresponsive_timeout: 1500ms\n    min_uptime: 100ms\n    env: { PORT: ${port} }\n`);
  await box.start(eco);
  const m = await watchMetrics(box, t);
  await m.waitFor((w) => w.metrics?.report_age_ms !== null, 30000, 'a first report');
  const ev = await watchEvents(box, t);
  const [before] = (await lsJson(box)).apps[0].workers;

  assert.match((await httpGet(port, '/spin')).body, /spinning/);
  const spunAt = Date.now();
  const exited = await ev.waitFor((e) => e.slot === 0 && e.state === 'exited', 30000, 'the stuck worker killed');
  assert.equal(exited.signal, 'SIGKILL');
  assert.ok(Date.now() - spunAt >= 1400, `not killed before unresponsive_timeout (${Date.now() - spunAt} ms)`);
  const back = await ev.waitFor((e) => e.slot === 0 && e.state === 'online' && e.pid !== before.pid, 30000, 'replaced');
  assert.match((await httpGet(port, '/')).body, new RegExp(`pid=${back.pid}`));

  const log = await waitForLog(box, /unresponsive/);
  const line = JSON.parse(log.split('\n').find((l) => l.includes('unresponsive')));
  assert.equal(line.pid, before.pid);
  assert.match(line.msg, /stuck#0 unresponsive: no metrics for \d+\.\d s .*killing it/);
  assert.ok(line.last_metrics?.loop_delay_ms, 'the last metrics seen are logged');
  assert.equal((await lsJson(box)).apps[0].workers[0].restarts, 1);
});

test('unresponsive_timeout off (the default): a slow but alive worker is left alone', async (t) => {
  const box = await sandbox(t);
  const port = await freePort();
  box.fixture('loop-lab.js');
  const eco = box.write('eco.yml', `apps:\n  - name: slow\n    script: loop-lab.js\n    metrics_interval: 200ms\n    env: { PORT: ${port} }\n`);
  await box.start(eco);
  const m = await watchMetrics(box, t);
  const [before] = (await lsJson(box)).apps[0].workers;
  // Reports resume after the block; the worker is the same. Wait from before the block:
  // the snapshot that shows it may come before the answer does.
  const seen = m.waitFor((w) => w.pid === before.pid && w.metrics?.loop_delay_ms?.max >= 1000, 30000, 'the block reported');
  await httpGet(port, '/block?ms=1500');
  await seen;
  assert.equal((await lsJson(box)).apps[0].workers[0].pid, before.pid);
});
