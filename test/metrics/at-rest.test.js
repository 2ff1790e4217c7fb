// Issue 20: nobody watching, an idle worker's agent wakes nothing (no report timer, no
// loop histogram ticking 50 times a second); `ls --json` still gets a fresh report by
// asking for one, and unresponsive_timeout still kills a blocked worker: the daemon pings
// the agents of that app (a report request) and judges the unanswered ping, not silence.
import test from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { sandbox, freePort, httpGet, lsJson, watchEvents } from '../helpers/harness.js';

/** Voluntary context switches of a process's main thread: one per wake of its event loop, about. */
const wakes = (pid) => Number(/voluntary_ctxt_switches:\s+(\d+)/.exec(fs.readFileSync(`/proc/${pid}/task/${pid}/status`, 'utf8'))[1]);

test('at rest: an unwatched idle worker wakes nothing, ls asks it, unresponsive_timeout pings', async (t) => {
  const box = await sandbox(t);
  const [quietPort, stuckPort, forkPort] = [await freePort(), await freePort(), await freePort()];
  box.fixture('loop-lab.js');
  const pidFile = path.join(box.dir, 'quiet.pid');
  box.write('quiet.js', `import http from 'node:http';\nimport fs from 'node:fs';\nconst port = Number(process.env.PORT ?? ${quietPort});\nhttp.createServer((q, r) => r.end('ok')).listen(port, '127.0.0.1', () => process.env.PORT || fs.writeFileSync(${JSON.stringify(pidFile)}, String(process.pid)));\n`);
  const eco = box.write('eco.yml', [
    'apps:',
    '  - name: quiet',
    '    script: quiet.js',
    '  - name: forked',
    '    script: quiet.js',
    '    exec_mode: fork',
    `    env: { PORT: ${forkPort} }`,
    '  - name: stuck',
    '    script: loop-lab.js',
    '    metrics_interval: 200ms',
    '    unresponsive_timeout: 1500ms',
    '    min_uptime: 100ms',
    `    env: { PORT: ${stuckPort} }`,
    '',
  ].join('\n'));
  await box.start(eco);
  const pid = Number(fs.readFileSync(pidFile, 'utf8'));

  await t.test('an idle worker nobody watches is not woken by its agent', async () => {
    // The window is the measurement: a 20 ms timer would wake it ~75 times in 1.5 s.
    const before = wakes(pid);
    await new Promise((resolve) => setTimeout(resolve, 1500));
    const woken = wakes(pid) - before;
    assert.ok(woken < 15, `the idle worker's main thread woke ${woken} times in 1.5 s`);
  });

  // A report the ls asked for is younger than the ls (the first below asks every agent); the
  // last one an idle worker sent unasked, if any, is from before the 1.5 s above.
  let firstAsked = null;
  const askedNow = async (app) => {
    firstAsked ??= Date.now();
    const [w] = (await lsJson(box)).apps.find((a) => a.name === app).workers;
    const since = Date.now() - firstAsked;
    assert.ok(w.metrics.report_age_ms !== null && w.metrics.report_age_ms <= since, `a report asked for by ls: ${w.metrics.report_age_ms} ms old, the first ls began ${since} ms ago`);
    return w;
  };

  await t.test('ls --json asks the agent: a fresh report with every loop figure', async () => {
    const w = await askedNow('quiet');
    assert.equal(w.pid, pid);
    assert.deepEqual(Object.keys(w.metrics.loop_delay_ms).sort(), ['max', 'mean', 'p50', 'p99']);
    assert.ok(w.metrics.heap_used > 1e5);
  });

  await t.test('a fork-mode worker answers too (its channel is read without an app listener)', async () => {
    await askedNow('forked');
  });

  await t.test('unresponsive_timeout kills a blocked worker with nobody watching', async (s) => {
    const ev = await watchEvents(box, s);
    const [before] = (await lsJson(box)).apps.find((a) => a.name === 'stuck').workers;
    assert.match((await httpGet(stuckPort, '/spin')).body, /spinning/);
    const spunAt = Date.now();
    const exited = await ev.waitFor((e) => e.app === 'stuck' && e.pid === before.pid && e.state === 'exited', 30000, 'the stuck worker killed');
    assert.equal(exited.signal, 'SIGKILL');
    assert.ok(Date.now() - spunAt >= 1400, `not killed before unresponsive_timeout (${Date.now() - spunAt} ms)`);
    await ev.waitFor((e) => e.app === 'stuck' && e.state === 'online' && e.pid !== before.pid, 30000, 'replaced');
  });
});
