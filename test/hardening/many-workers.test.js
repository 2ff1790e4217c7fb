// Issue 7: the daemon keeps many workers. One app of 50 cluster workers, each a tiny http
// server whose agent reports every 200 ms (5x the default rate): all come online, `super ls
// --json` shows them, and the daemon's RSS stays under a stated bound while they report.
// The cost at 100 workers, beside PM2 and a raw cluster primary, is measured by
// bench/metrics.js (docs/benchmarks.md); 50 here keeps the suite's CPU in bounds.
import test from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import { performance } from 'node:perf_hooks';
import { sandbox, freePort, httpGet, lsJson, watchEvents } from '../helpers/harness.js';

const WORKERS = 50;
// Measured on a 2-core host (Node 20): ~60 MB idle, ~75 MB with 100 workers reporting.
const RSS_BOUND_MB = 150;
const TICKS = 3; // metrics samples (1 s apart) watched while the workers report

const rssMb = (pid) => Number(/VmRSS:\s+(\d+)/.exec(fs.readFileSync(`/proc/${pid}/status`, 'utf8'))[1]) / 1024;
const reported = (w) => typeof w.metrics?.report_age_ms === 'number';

test(`${WORKERS} workers reporting metrics every 200 ms: all online, daemon RSS bounded`, { timeout: 120000 }, async (t) => {
  const box = await sandbox(t);
  const port = await freePort();
  box.fixture('http-server.js');
  const eco = box.write('eco.yml', `apps:\n  - name: many\n    script: http-server.js\n    instances: ${WORKERS}\n    metrics_interval: 200ms\n    listen_timeout: 60s\n    env: { PORT: ${port} }\n`);
  const t0 = performance.now();
  await box.start(eco);
  const bootMs = Math.round(performance.now() - t0);
  const daemon = box.daemonPid();
  const afterBoot = rssMb(daemon);

  // The daemon's metrics pushes (one per sample): RSS is read at each while all report.
  const ev = await watchEvents(box, t, ['metrics']);
  let rssMax = afterBoot;
  let ticks = 0;
  await ev.waitFor((snap) => {
    rssMax = Math.max(rssMax, rssMb(daemon));
    if (snap.apps[0].workers.every(reported)) ticks++;
    return ticks >= TICKS;
  }, 60000, `${TICKS} samples with every worker reporting`);

  // `super ls --json` shows every worker (how fast the daemon answers it is a figure:
  // `npm run bench` times `super ls`).
  const ls = await lsJson(box);
  const workers = ls.apps[0].workers;
  t.diagnostic(`boot ${bootMs} ms; daemon RSS ${afterBoot.toFixed(0)} MB after boot, max ${rssMax.toFixed(0)} MB over ${TICKS} samples`);
  assert.equal(workers.length, WORKERS);
  assert.deepEqual(workers.filter((w) => w.status !== 'online'), [], 'every worker online');
  assert.equal(new Set(workers.map((w) => w.pid)).size, WORKERS, 'distinct processes');
  assert.ok(workers.every((w) => reported(w) && w.metrics.report_age_ms < 5000), 'every agent reports');
  assert.ok(rssMax < RSS_BOUND_MB, `daemon RSS under ${RSS_BOUND_MB} MB (max ${rssMax.toFixed(0)} MB)`);
  assert.equal((await httpGet(port)).status, 200, 'the app serves');
});
