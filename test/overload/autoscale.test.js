// Issue 28, autoscale: an app with `instances: { min: 1, max: 2 }` adds a worker while
// every worker is over an up bound for up.for, and retires it gracefully once every worker
// is under the down bounds for down.for; nothing happens under the bounds; a reload keeps
// the count; `super scale` stays within the bounds; a host without the memory for one more
// worker says no. One daemon, one app of a fixture that holds requests open (in-flight
// requests are the figure: no CPU is burnt), and a paced load on keep-alive connections
// opened before the scale up (they move in part to the new worker: the rebalance) that
// must see no failure throughout.
import fs from 'node:fs';
import http from 'node:http';
import test from 'node:test';
import assert from 'node:assert/strict';
import { sandbox, freePort, httpGet, lsJson } from '../helpers/harness.js';
import { request } from '../helpers/requests.js';
import { eventually } from '../helpers/wait.js';
import { holdRequests } from '../helpers/held-requests.js';

const MiB = 1024 * 1024;

/**
 * A paced keep-alive load, as a pool of clients sends it: `sockets` GET / at once on as many
 * keep-alive connections every `every` ms (at most `max` rounds), until stop(); resolves
 * with what it saw. Its connections are opened while the app has one worker: the second one
 * serves them only when some of them move (the rebalance after a scale up).
 */
function pacedLoad(port, { sockets = 4, every = 25, max = 4000 } = {}) {
  const agent = new http.Agent({ keepAlive: true, maxSockets: sockets });
  const seen = { ok: 0, failures: [] };
  let stopped = false;
  let rounds = 0;
  const one = () => new Promise((resolve) => {
    const req = http.get({ host: '127.0.0.1', port, path: '/', agent, timeout: 10000 }, (res) => {
      res.resume();
      res.on('end', () => {
        if (res.statusCode === 200) seen.ok++;
        else seen.failures.push(`status ${res.statusCode}`);
        resolve(undefined);
      });
    });
    req.on('timeout', () => req.destroy(new Error('timeout')));
    req.on('error', (err) => {
      seen.failures.push(err.message);
      resolve(undefined);
    });
  });
  const running = (async () => {
    while (!stopped && rounds++ < max) {
      await Promise.all([Array.from({ length: sockets }, one), new Promise((r) => setTimeout(r, every))].flat());
    }
    agent.destroy();
    return seen;
  })();
  return { seen, stop: () => { stopped = true; return running; } };
}

test('autoscale: up over the bounds, down under them, gracefully; a start or reload keeps the count; bounds and memory hold', async (t) => {
  const box = await sandbox(t);
  const [port, mport] = [await freePort(), await freePort()];
  box.fixture('overload-lab.js');
  const meminfo = (bytes) => box.write('meminfo', `MemTotal:       65536000 kB\nMemAvailable:   ${Math.floor(bytes / 1024)} kB\n`);
  process.env.SUPER_MEMINFO = meminfo(64 * 1024 * MiB); // the daemon, launched from here, reads its memory there
  const eco = box.write('eco.yml', [
    `metrics: { listen: 127.0.0.1:${mport}, interval: 200ms }`,
    // The daemon hands each reconnection to the next worker: the rebalance below moves some of
    // the load's 4 connections for sure (under reuseport the kernel's hash would keep all 4 on
    // the old worker one time in 16).
    'scheduling: round-robin',
    'apps:',
    '  - name: pool',
    '    script: overload-lab.js',
    '    instances: { min: 1, max: 2 }',
    '    drain_timeout: 1s',
    `    env: { PORT: ${port} }`,
    '    autoscale:',
    '      up: { inflight: 2, for: 600ms }',
    '      down: { inflight: 0.5, for: 600ms }',
    '      cooldown: 300ms',
  ].join('\n'));
  await box.start(eco);
  const app = async () => (await lsJson(box)).apps[0];
  const until = (pred, what) => {
    let last;
    return eventually(async () => {
      last = await app();
      return pred(last) && last;
    }, { what, timeout: 20000, last: () => JSON.stringify({ autoscale: last?.autoscale, workers: last?.workers.map((w) => [w.slot, w.status, w.metrics?.http_inflight]) }) });
  };
  const daemonLog = () => fs.readFileSync(`${box.home}/daemon.log`, 'utf8');
  let load = null;
  t.after(() => load?.stop());

  await t.test('under the up bound nothing changes', async () => {
    const held = await holdRequests(port, 1); // 1 in flight: under up.inflight 2
    try {
      // Eight fresh reports that see the held request: over three times up.for + cooldown.
      // A report's time, as seen from here, within a few ms (the reports are 200 ms apart).
      const reports = [];
      await until((a) => {
        const m = a.workers[0].metrics;
        const at = Date.now() - m?.report_age_ms;
        if (m?.http_inflight >= 0.9 && reports.every((r) => Math.abs(r - at) > 50)) reports.push(at);
        return reports.length >= 8;
      }, 'eight reports with one request in flight');
      const a = await app();
      assert.equal(a.workers.length, 1);
      assert.deepEqual(a.autoscale, { min: 1, max: 2, workers: 1, last: null });
    } finally {
      held.release();
    }
  });

  let held = null;
  await t.test('every worker over the up bound for up.for: a second worker, through the normal start, serving', async () => {
    load = pacedLoad(port);
    held = await holdRequests(port, 3);
    const a = await until((x) => x.workers.length === 2 && x.workers.every((w) => w.status === 'online') && x.autoscale.last?.workers === 2, 'a second worker online');
    assert.equal(a.autoscale.last.direction, 'up');
    assert.equal(a.autoscale.last.from, 1);
    assert.ok(a.autoscale.last.figures.inflight >= 2, JSON.stringify(a.autoscale.last));
    assert.match(a.autoscale.last.reason, /^every worker over inflight 2 on average for 0.6 s$/);
    // the daemon writes its log off its loop: the step's lines may land a moment after ls shows it
    await eventually(() => /pool: autoscale up done: 2 workers/.test(daemonLog()), { timeout: 10000, what: 'the step in daemon.log', last: daemonLog });
    assert.match(daemonLog(), /pool: autoscale up 1 -> 2 workers \(every worker over inflight 2 on average for 0.6 s; elu [\d.]+, loop_delay [\d.]+ ms, inflight [\d.]+\)/);
    assert.match(daemonLog(), /pool: autoscale up done: 2 workers/);
    // keep-alive connections opened before the step move in part to the new worker
    await until((x) => x.workers[1]?.metrics?.http_rps > 0, 'the second worker to serve requests');
    const prom = (await httpGet(mport, '/metrics')).body;
    assert.match(prom, /^superd_app_autoscale_min_workers\{app="pool"\} 1$/m);
    assert.match(prom, /^superd_app_autoscale_max_workers\{app="pool"\} 2$/m);
    assert.match(prom, /^superd_app_autoscale_last_step_timestamp_seconds\{app="pool",direction="up",outcome="done"\} \d+/m);
    const ls = await box.cli(['ls']);
    assert.match(ls.stdout, /^pool: autoscale 2 of 1-2, up at \d\d:\d\d:\d\d \(elu [\d.]+, loop_delay [\d.]+ ms, inflight [\d.]+\)$/m);
  });

  await t.test('a start of its file and a reload keep the count it has, and `super scale` stays within the bounds', async () => {
    const again = await box.start(eco);
    assert.deepEqual([again.running, again.changed], [['pool'], []], 'the count it scaled to is not a change of the file');
    const r = await request(box, 'reload', { target: 'pool' });
    assert.equal(r.apps[0].ok, true, JSON.stringify(r));
    assert.deepEqual(r.apps[0].replaced.sort(), [0, 1], 'both workers replaced, none retired');
    held.release(); // the old worker's drain cut them anyway
    const refused = await box.cli(['scale', 'pool', '3']);
    assert.equal(refused.code, 2, refused.stderr);
    assert.match(refused.stderr, /E_USAGE: pool autoscales between 1 and 2 workers \(instances: \{ min: 1, max: 2 \}\); scale it within them/);
  });

  await t.test('every worker under the down bound for down.for: back to min, gracefully, no request failed', async () => {
    const a = await until((x) => x.workers.length === 1 && x.autoscale.last?.direction === 'down' && x.autoscale.last.workers === 1, 'back to one worker');
    assert.match(a.autoscale.last.reason, /^every worker under inflight 0\.5 for 0\.6 s$/);
    // The load that ran since the step up is served on by the one worker left.
    const before = load.seen.ok;
    await eventually(() => load.seen.ok > before, { what: 'the load served after the step down' });
    const seen = await load.stop();
    load = null;
    assert.deepEqual(seen.failures, []);
  });

  await t.test('a host without the memory for one more worker says no: refused, logged, shown', async () => {
    meminfo(70 * MiB); // 64 MiB are kept free: no room for a worker of ~40 MiB
    const more = await holdRequests(port, 3);
    try {
      const a = await until((x) => x.autoscale.last?.refused, 'the step up refused');
      assert.equal(a.workers.length, 1);
      assert.match(a.autoscale.last.refused, /^the host has 70 MB available, and one more worker needs \d+ MB/);
      await eventually(() => /pool: autoscale up refused: the host has 70 MB available/.test(daemonLog()), { timeout: 10000, what: 'the refusal in daemon.log', last: daemonLog });
      assert.match((await box.cli(['ls'])).stdout, /^pool: autoscale 1 of 1-2, up refused at \d\d:\d\d:\d\d: the host has 70 MB/m);
    } finally {
      more.release();
      meminfo(64 * 1024 * MiB);
    }
  });
});
