#!/usr/bin/env node
// Autoscaling under a load step (issue 28): `node bench/autoscale.js` (run it under
// `flock /tmp/superd-bench.lock`, see bench/README.md).
// An app of bench/overload-app.js (BURN_MS of CPU a request). First one worker's capacity
// (1x) is measured closed-loop on a bare cluster, the worker pinned to CPU 1; then each
// target gets one open-loop load (bench/lib/open-loop.js, 5 s timeout) in three phases:
// --base seconds at --low x capacity, --duration seconds at --factor x (the step), then a
// trickle of --trickle x (the load has ended; the trickle checks that a worker's retirement
// drops nothing) for down.for + cooldown + 5 s (5 s for the targets that do not scale):
//   superd autoscale  instances: { min: 1, max: 2 }, up: { elu: 0.8, for: --up-for } (the
//                     default rule at the default 10 s; the daemon samples every --interval ms,
//                     the agents report every --report-interval ms, the app's
//                     metrics_interval, which sets the pace of its decisions (0: none set,
//                     they report as the daemon samples)),
//                     down: { elu: 0.3, for: --down-for }, cooldown: --cooldown; worker 0
//                     on CPU 1, worker 1 on CPU 0 (beside the daemon and this driver: 2 CPUs)
//   superd            instances: 1, the worker on CPU 1
//   pm2               pm2 start -i 1 (cluster mode)
//   raw node:cluster  bench/raw-cluster.js, 1 worker
//   superd autoscale + overload (not in the default run): the autoscaled app with
//                     `overload: { max_loop_delay: 10ms }` (superd-autoscale-overload) or
//                     `{ max_queue_wait: 500ms }` (superd-autoscale-queue); a column gives
//                     the share of the step's requests that failed once the second worker served
// The daemon / primary and this driver run on CPU 0. The app answers `pid N`: the first
// answer from a second pid is when the second worker serves. The autoscale target runs
// --runs times (medians), the others once: they do not scale.
// Prints markdown tables (stdout) and writes bench/results/autoscale.json.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fmt, table } from './stats.js';
import { ROOT, SUPER_BIN, run, startRaw, startSuperd, startPm2, leaks, stopAllOnExit, cpuSnapshot, cpuDelta, sleep } from './targets.js';
import { ALL_CPUS, ON_CPU0, capacity, closedLoopRate, driverOn, pinWorker } from './lib/pinned-worker.js';
import { benchArgs } from './lib/args.js';
import { openLoop, quantile } from './lib/open-loop.js';

const APP = path.join(ROOT, 'bench/overload-app.js');
const TIMEOUT_MS = 5000;
const FIXED_TAIL_S = 5;
const DOWN_WAIT_MS = 30000; // after the load, how long to wait for the step down to end
const log = (s) => process.stderr.write(`${s}\n`);

const opts = benchArgs(process.argv.slice(2), {
  defaults: { duration: 45, base: 10, low: 0.5, factor: 1.8, trickle: 0.1, burn: 10, runs: 3, window: 5, slo: 250, 'up-for': 10, interval: 1000, 'report-interval': 0, 'down-for': 20, cooldown: 10, only: '' },
  fractional: ['low', 'factor', 'trickle'],
  lists: ['only'],
  choices: { only: ['superd-autoscale', 'superd', 'pm2', 'raw', 'superd-autoscale-overload', 'superd-autoscale-queue'] },
  usage: 'node bench/autoscale.js [--duration 45] [--base 10] [--low 0.5] [--factor 1.8] [--trickle 0.1] [--burn 10] [--runs 3] [--window 5] [--slo 250] [--up-for 10] [--interval 1000] [--report-interval 0] [--down-for 20] [--cooldown 10] [--only superd-autoscale,superd,pm2,raw,superd-autoscale-overload,superd-autoscale-queue]',
});
const command = ['node', 'bench/autoscale.js', ...process.argv.slice(2)].join(' ');
stopAllOnExit(['SIGINT', 'SIGTERM']);

if (os.availableParallelism() < 2) {
  log('bench: needs 2 CPUs (a worker on each)');
  process.exit(2);
}
process.env.BURN_MS = String(opts.burn); // the targets' workers inherit it

const UP_RULE = `up: { elu: 0.8, for: ${opts['up-for']}s }`;
const AUTOSCALE = `autoscale: { ${UP_RULE}, down: { elu: 0.3, for: ${opts['down-for']}s }, cooldown: ${opts.cooldown}s }`;
// The agents report (and the app decides) every --report-interval ms: its metrics_interval.
const REPORTS = opts['report-interval'] ? [`metrics_interval: ${opts['report-interval']}ms`] : [];
const DAEMON_ON_CPU0 = ['daemon: { cpu_affinity: 0 }'];
// The daemon samples every metrics.interval: --interval ms.
const SAMPLING = opts.interval === 1000 ? [] : [`metrics: { interval: ${opts.interval}ms }`];
const TARGETS = {
  'superd-autoscale': () => startSuperd({ instances: { min: 1, max: 2 }, script: APP, top: [...DAEMON_ON_CPU0, ...SAMPLING], app: ['cpu_affinity: { 0: [1], 1: [0] }', AUTOSCALE, ...REPORTS], name: 'superd autoscale 1-2' }),
  superd: () => startSuperd({ instances: 1, script: APP, top: DAEMON_ON_CPU0, app: ['cpu_affinity: [1]'], name: 'superd, instances: 1' }),
  pm2: () => startPm2({ instances: 1, script: APP, prefix: ON_CPU0, name: 'pm2 -i 1' }),
  raw: () => startRaw({ instances: 1, script: APP, prefix: ON_CPU0, name: 'raw node:cluster, 1 worker' }),
  // Not in the default run: autoscaling with overload shedding, which turns the step's
  // queue into fast 503s until the second worker serves.
  'superd-autoscale-overload': () => startSuperd({ instances: { min: 1, max: 2 }, script: APP, top: [...DAEMON_ON_CPU0, ...SAMPLING], app: ['cpu_affinity: { 0: [1], 1: [0] }', AUTOSCALE, ...REPORTS, 'overload: { max_loop_delay: 10ms }'], name: 'superd autoscale 1-2 + overload (max_loop_delay 10ms)' }),
  // The same with the bound of docs/overload.md's example (issue 39: the second worker
  // serves, and once it does, refusals stop).
  'superd-autoscale-queue': () => startSuperd({ instances: { min: 1, max: 2 }, script: APP, top: [...DAEMON_ON_CPU0, ...SAMPLING], app: ['cpu_affinity: { 0: [1], 1: [0] }', AUTOSCALE, ...REPORTS, 'overload: { max_queue_wait: 500ms }'], name: 'superd autoscale 1-2 + overload (max_queue_wait 500ms)' }),
};
const DEFAULT_KEYS = ['superd-autoscale', 'superd', 'pm2', 'raw'];
const autoscales = (key) => key.startsWith('superd-autoscale');

/** Quantile of numbers where a failure counts as Infinity (a window with 1 % failed has p99 "failed"). */
const q99 = (xs) => quantile([...xs].sort((a, b) => a - b), 0.99);
/** The median, Infinity included (stats.median leaves it out). */
const medianOf = (xs) => {
  const v = xs.filter((x) => x != null).sort((a, b) => a - b);
  if (!v.length) return null;
  const m = v.length >> 1;
  return v.length % 2 ? v[m] : (v[m - 1] + v[m]) / 2;
};

/** The autoscale lines of a daemon.log: [{at, direction, done}]. */
function scaleEvents(home) {
  let text = '';
  try {
    text = fs.readFileSync(path.join(home, 'daemon.log'), 'utf8');
  } catch { /* no log yet */ }
  const events = [];
  for (const line of text.split('\n')) {
    const m = /autoscale (up|down) (done|\d)/.exec(line);
    if (!m) continue;
    try {
      events.push({ at: Date.parse(JSON.parse(line).time), direction: m[1], done: m[2] === 'done', msg: JSON.parse(line).msg });
    } catch { /* a torn line */ }
  }
  return events;
}

/** The figures of one run, from every request's outcome. All times are epoch ms. */
function analyse({ results, firstPid, step, end, scales }) {
  const s = (ms) => Math.round(ms / 100) / 10;
  const pidOf = (r) => Number(/pid (\d+)/.exec(r.body)?.[1]);
  const latency = (r) => (r.status === 200 ? r.ms : Infinity);
  const inRange = (from, to) => results.filter((r) => r.at >= from && r.at < to);
  const failed = (rs) => ({
    non200: rs.filter((r) => typeof r.status === 'number' && r.status !== 200).length,
    errors: rs.filter((r) => r.status === 'error').length,
    timeouts: rs.filter((r) => r.status === 'timeout').length,
  });
  const second = results.filter((r) => r.status === 200 && pidOf(r) !== firstPid).map((r) => r.at + r.ms);
  const secondAt = second.length ? Math.min(...second) : null;
  const lastSecond = second.length ? Math.max(...second) : null;

  const windows = [];
  const last = Math.max(...results.map((r) => r.at));
  for (let from = step - Math.ceil(opts.base / opts.window) * opts.window * 1000; from <= last; from += opts.window * 1000) {
    const rs = inRange(from, from + opts.window * 1000);
    const f = failed(rs);
    windows.push({
      from: s(from - step),
      requests: rs.length,
      p99: q99(rs.map(latency)),
      failed: f.non200 + f.errors + f.timeouts,
      pids: new Set(rs.filter((r) => r.status === 200).map(pidOf)).size,
    });
  }
  // The first window of the step from which every window of it keeps p99 under the SLO.
  const high = windows.filter((w) => w.from >= 0 && w.from < opts.duration);
  let recovered = null;
  for (let i = high.length - 1; i >= 0 && high[i].p99 <= opts.slo; i--) recovered = high[i].from;
  const highRs = inRange(step, end);
  const lastStretch = inRange(end - Math.min(15, opts.duration / 2) * 1000, end);
  const highFailed = failed(highRs);
  // Issue 39: once the second worker serves, refusals stop (< 1 % of the step's requests after it).
  const afterSecond = secondAt === null ? [] : inRange(secondAt, end);
  const afterFailed = failed(afterSecond);
  return {
    afterSecond: { requests: afterSecond.length, refused: afterFailed.non200, timeouts: afterFailed.timeouts, errors: afterFailed.errors },
    secondServesS: secondAt === null ? null : s(secondAt - step),
    secondLastS: lastSecond === null ? null : s(lastSecond - end),
    recoveredS: recovered,
    highP99: q99(highRs.map(latency)),
    lastStretchP99: q99(lastStretch.map(latency)),
    highServedRate: highRs.filter((r) => r.status === 200).length / opts.duration,
    highTimeouts: highFailed.timeouts,
    highFailed: highFailed.non200 + highFailed.errors + highFailed.timeouts,
    failed: failed(results),
    requests: results.length,
    windows,
    scales,
  };
}

async function measure(key, cap) {
  driverOn(ALL_CPUS);
  const t = await TARGETS[key]();
  try {
    const firstPid = await pinWorker(t.port);
    driverOn(0);
    const tail = autoscales(key) ? opts['down-for'] + opts.cooldown + 5 : FIXED_TAIL_S;
    const phases = [
      { rate: cap * opts.low, seconds: opts.base },
      { rate: cap * opts.factor, seconds: opts.duration },
      { rate: cap * opts.trickle, seconds: tail },
    ];
    log(`${t.name}: ${phases.map((p) => `${p.seconds} s at ${fmt(p.rate)} req/s`).join(', then ')}`);
    const results = [];
    const before = cpuSnapshot(t);
    const startAt = performance.timeOrigin + performance.now();
    await openLoop({ port: t.port, phases, timeout: TIMEOUT_MS, onResult: (r) => results.push(r) });
    const cpu = cpuDelta(before, cpuSnapshot(t));
    const step = startAt + opts.base * 1000;
    const end = step + opts.duration * 1000;
    let scales = null;
    if (autoscales(key)) {
      // The step down may still run (a late decision, a drain): wait for its end, bounded.
      const home = t.env.SUPER_HOME;
      const deadline = Date.now() + DOWN_WAIT_MS;
      const downDone = () => scaleEvents(home).some((e) => e.direction === 'down' && e.done);
      while (!downDone() && Date.now() < deadline) await sleep(500);
      const events = scaleEvents(home);
      const ls = JSON.parse(await run(process.execPath, [SUPER_BIN, 'ls', '--json'], { env: t.env }));
      const first = (direction, done) => events.find((e) => e.direction === direction && e.done === done)?.at;
      const since = (at, from) => (at === undefined ? null : Math.round((at - from) / 100) / 10);
      const downMissing = first('down', true) === undefined;
      if (downMissing) { // keep what tells why: the daemon's log and each worker's last figures
        const saved = path.join(ROOT, 'bench/results', `autoscale-no-step-down-${Date.now()}.log`);
        fs.copyFileSync(path.join(home, 'daemon.log'), saved);
        log(`${t.name}: no step down ${(DOWN_WAIT_MS / 1000)} s after the trickle; daemon.log kept in ${saved}`);
      }
      scales = {
        lastFigures: downMissing ? ls.apps[0].workers.map((w) => ({ pid: w.pid, status: w.status, metrics: w.metrics })) : undefined,
        upDecidedS: since(first('up', false), step),
        upDoneS: since(first('up', true), step),
        downDecidedS: since(first('down', false), end),
        downDoneS: since(first('down', true), end),
        workersAfter: ls.apps[0].workers.length,
        log: events.map((e) => e.msg),
      };
    }
    return { target: t.name, key, cpu, ...analyse({ results, firstPid, step, end, scales }) };
  } finally {
    await t.stop();
  }
}

/**
 * What the two workers of the autoscale target serve together, closed-loop (superd,
 * instances: 2, placed as the autoscale target places them, the driver on CPU 0): the
 * most a step can ask of them on this machine without a queue that grows.
 */
async function twoWorkersCapacity() {
  driverOn(ALL_CPUS);
  const t = await startSuperd({ instances: 2, script: APP, top: DAEMON_ON_CPU0, app: ['cpu_affinity: { 0: [1], 1: [0] }'], name: 'superd, instances: 2' });
  try {
    driverOn(0);
    const rate = await closedLoopRate(t.port, 8);
    log(`two workers as autoscale places them: ${fmt(rate)} req/s`);
    return rate;
  } finally {
    await t.stop();
    driverOn(ALL_CPUS);
  }
}

log(`capacity: one worker of bench/overload-app.js (${opts.burn} ms of CPU a request) on CPU 1 ...`);
const cap = await capacity(APP);
log(`capacity ${fmt(cap)} req/s: ${fmt(cap * opts.low)} req/s, then ${fmt(cap * opts.factor)} req/s`);
const keys = opts.only.length ? opts.only : DEFAULT_KEYS;
const cap2 = keys.some(autoscales) ? await twoWorkersCapacity() : null;
const loadAvg = os.loadavg()[0];
/** @type {Record<string, any[]>} */
const runs = Object.fromEntries(keys.map((k) => [k, []]));
for (let i = 0; i < opts.runs; i++) {
  for (const key of keys) {
    if (i === 0 || autoscales(key)) runs[key].push(await measure(key, cap));
  }
}

// Cells: the median of the runs, each run's value after it when there are several.
const num = (v, d = 1) => (v == null ? '-' : v === Infinity ? 'failed' : fmt(v, d));
const msCell = (v) => (v == null ? '-' : v === Infinity ? 'failed' : fmt(v, 0));
const cell = (rs, pick, show = num) => {
  const vs = rs.map(pick);
  const m = show(medianOf(vs));
  return vs.length > 1 ? `${m} (${vs.map((v) => show(v)).join(' / ')})` : m;
};
const failedCell = (r) => {
  const f = r.failed;
  return `${fmt(f.non200 + f.errors + f.timeouts)} (${fmt(f.non200)} / ${fmt(f.errors)} / ${fmt(f.timeouts)})`;
};
const rows = keys.map((k) => {
  const rs = runs[k];
  return [
    rs[0].target,
    String(rs.length),
    cell(rs, (r) => r.scales?.upDoneS),
    cell(rs, (r) => r.secondServesS),
    cell(rs, (r) => r.recoveredS, (v) => (v == null ? 'never' : fmt(v, 0))),
    cell(rs, (r) => r.lastStretchP99, msCell),
    cell(rs, (r) => r.highP99, msCell),
    cell(rs, (r) => r.highServedRate, (v) => num(v, 0)),
    cell(rs, (r) => r.highTimeouts, (v) => num(v, 0)),
    cell(rs, (r) => (r.afterSecond.requests ? (100 * (r.afterSecond.refused + r.afterSecond.timeouts + r.afterSecond.errors)) / r.afterSecond.requests : null), (v) => (v == null ? '-' : `${num(v, 2)} %`)),
    rs.map(failedCell).join(', '),
    cell(rs, (r) => r.scales?.downDoneS),
    cell(rs, (r) => r.cpu.other, (v) => num(v, 2)),
  ];
});
const lastStretch = Math.min(15, opts.duration / 2);
const settings = `${SAMPLING.map((l) => `${l}, `).join('')}instances: { min: 1, max: 2 }, ${REPORTS.map((l) => `${l}, `).join('')}autoscale: { ${UP_RULE}${opts['up-for'] === 10 ? ' (the default)' : ''}, down: { elu: 0.3, for: ${opts['down-for']}s }, cooldown: ${opts.cooldown}s }`;
const scaled = keys.filter(autoscales);
const windowHeader = ['s after the step', ...keys.map((k) => `${runs[k][0].target}: p99 ms`), ...scaled.map((k) => `${runs[k][0].target}: workers serving, each run`)];
const windowCount = Math.max(...keys.flatMap((k) => runs[k].map((r) => r.windows.length)));
const windowRows = [];
for (let i = 0; i < windowCount; i++) {
  const w = keys.flatMap((k) => runs[k].map((r) => r.windows[i])).find(Boolean);
  const p99s = keys.map((k) => {
    const ws = runs[k].map((r) => r.windows[i]).filter(Boolean);
    if (!ws.length) return '';
    const failedCount = medianOf(ws.map((x) => x.failed));
    const p99 = medianOf(ws.map((x) => x.p99));
    if (p99 === Infinity) return `${fmt(failedCount)} failed`;
    return `${msCell(p99)}${failedCount ? ` (${fmt(failedCount)} failed)` : ''}`;
  });
  const pids = scaled.map((k) => runs[k].map((r) => r.windows[i]?.pids ?? '-').join(' / '));
  const phase = w.from < 0 ? `${opts.low}x` : w.from < opts.duration ? `${opts.factor}x` : `${opts.trickle}x`;
  windowRows.push([`${fmt(w.from, 0)} to ${fmt(w.from + opts.window, 0)} (${phase})`, ...p99s, ...pids]);
}
const out = [
  `## Autoscale: a step from ${opts.low}x to ${opts.factor}x of one worker's capacity, open loop`,
  '',
  `\`${command}\` — capacity (1x) ${fmt(cap)} req/s (one worker, ${opts.burn} ms of CPU a request, pinned to CPU 1, closed-loop autocannon -c 4); `
    + `${opts.base} s at ${opts.low}x (${fmt(cap * opts.low)} req/s), ${opts.duration} s at ${opts.factor}x (${fmt(cap * opts.factor)} req/s), `
    + `then ${opts.trickle}x (${fmt(cap * opts.trickle)} req/s) for ${opts['down-for'] + opts.cooldown + 5} s (autoscale) or ${FIXED_TAIL_S} s (the others); `
    + `a constant arrival rate (bench/lib/open-loop.js), latencies from each request's scheduled time, ${TIMEOUT_MS / 1000} s client timeout. `
    + `superd autoscale: ${settings}; worker 0 on CPU 1, worker 1 on CPU 0; the others: one worker on CPU 1. `
    + (cap2 ? `Two workers placed so (superd, instances: 2, closed-loop autocannon -c 8) serve ${fmt(cap2)} req/s, ${fmt(cap2 / cap, 2)}x. ` : '')
    + `The daemon or primary and the load generator on CPU 0. SLO: p99 <= ${opts.slo} ms. `
    + `p99s count a failed request as infinite ("failed": more than 1 % of them failed). Autoscale: median of ${opts.runs} runs (each run in brackets); the others once, as they do not scale. `
    + `Load average ${fmt(loadAvg, 2)} at the start.`,
  '',
  table([
    'target', 'runs', 'second worker ready (daemon.log), s after the step', 'second worker answers a client, s after the step', `p99 <= ${opts.slo} ms from, s after the step`, `p99 ms, last ${lastStretch} s at ${opts.factor}x`,
    `p99 ms at ${opts.factor}x`, `served req/s at ${opts.factor}x`, `timeouts at ${opts.factor}x`, `failed after the second worker answers, of the requests at ${opts.factor}x sent since`, 'failed, whole run (non-200 / errors / timeouts)',
    'back to 1 worker, s after the load ends', 'other load',
  ], rows),
  '',
  `p99 per ${opts.window} s window (by scheduled time; medians of the runs), and the failed requests in it:`,
  '',
  table(windowHeader, windowRows),
];
process.stdout.write(`${out.join('\n')}\n`);
const dir = path.join(ROOT, 'bench/results');
fs.mkdirSync(dir, { recursive: true });
fs.writeFileSync(path.join(dir, 'autoscale.json'), `${JSON.stringify({ command, capacity: cap, twoWorkersCapacity: cap2, loadAvg, settings, slo: opts.slo, runs, leaks }, (k, v) => (v === Infinity ? 'failed' : v), 2)}\n`);
log('wrote bench/results/autoscale.json');
if (leaks.length) log(`LEAKS: ${JSON.stringify(leaks)}`);
await sleep(0);
