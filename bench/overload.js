#!/usr/bin/env node
// Overload at a multiple of capacity (issue 28): `node bench/overload.js` (run it under
// `flock /tmp/superd-bench.lock`, see bench/README.md).
// One worker of bench/overload-app.js (BURN_MS of CPU per request) pinned to CPU 1; the
// daemon / primary and this driver on CPU 0. First the worker's capacity (1x) is measured
// closed-loop (autocannon, bare node:cluster); then each target gets an open-loop load
// (bench/lib/open-loop.js: a constant arrival rate, 5 s timeout) of --factor x capacity for
// --duration seconds, after a 2 s warm-up at 0.5x:
//   superd            no `overload:`: what clients see past capacity
//   superd overload   `overload: { max_loop_delay: --delay }`
//   superd queue wait `overload: { max_queue_wait: --wait }` (issue 39)
//   ... scheduling os the same with `scheduling: os`: the worker accepts its connections
//                     itself, instead of the daemon's round-robin handoff (one connection
//                     per turn of the worker's loop: new clients queue there when it is busy)
//   pm2               pm2 start -i 1 (cluster mode)
//   raw node:cluster  bench/raw-cluster.js
// Each target runs once per client shape of --shape: keep-alive (a pool of kept-alive
// connections) and new-connection (a connection per request, `Connection: close`).
// Prints a markdown table (stdout) and writes bench/results/overload.json.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fmt, table } from './stats.js';
import { ROOT, startRaw, startSuperd, startPm2, leaks, stopAllOnExit, cpuSnapshot, cpuDelta, sleep } from './targets.js';
import { ALL_CPUS, ON_CPU0, capacity, driverOn, pinWorker } from './lib/pinned-worker.js';
import { benchArgs } from './lib/args.js';
import { openLoop, quantile } from './lib/open-loop.js';

const APP = path.join(ROOT, 'bench/overload-app.js');
const WARMUP_S = 2;
const SETTLE_S = 2; // the first seconds at full load: the clients' connection pool grows
const TIMEOUT_MS = 5000;
const log = (s) => process.stderr.write(`${s}\n`);

const opts = benchArgs(process.argv.slice(2), {
  defaults: { duration: 20, factor: 3, burn: 10, delay: 10, wait: 500, only: '', shape: 'keep-alive,new-connection' },
  fractional: ['factor'],
  lists: ['only', 'shape'],
  choices: { only: ['superd', 'superd-overload', 'superd-queue', 'superd-queue-os', 'superd-overload-os', 'pm2', 'raw'], shape: ['keep-alive', 'new-connection'] },
  usage: 'node bench/overload.js [--duration 20] [--factor 3] [--burn 10] [--delay 10] [--wait 500] [--shape keep-alive,new-connection] [--only superd,superd-overload,superd-queue,superd-queue-os,superd-overload-os,pm2,raw]',
});
const command = ['node', 'bench/overload.js', ...process.argv.slice(2)].join(' ');
stopAllOnExit(['SIGINT', 'SIGTERM']);

const cpus = os.availableParallelism();
if (cpus < 2) {
  log('bench: needs 2 CPUs (the worker on one, the daemon and the load on the other)');
  process.exit(2);
}
const env = { BURN_MS: String(opts.burn) };
Object.assign(process.env, env); // the targets' workers inherit it
const TARGETS = {
  superd: () => startSuperd({ instances: 1, script: APP, top: ['daemon: { cpu_affinity: 0 }'], app: ['cpu_affinity: [1]'], name: 'superd' }),
  'superd-overload': () => startSuperd({ instances: 1, script: APP, top: ['daemon: { cpu_affinity: 0 }'], app: ['cpu_affinity: [1]', `overload: { max_loop_delay: ${opts.delay}ms }`], name: `superd + overload (max_loop_delay ${opts.delay}ms)` }),
  'superd-queue': () => startSuperd({ instances: 1, script: APP, top: ['daemon: { cpu_affinity: 0 }'], app: ['cpu_affinity: [1]', `overload: { max_queue_wait: ${opts.wait}ms }`], name: `superd + overload (max_queue_wait ${opts.wait}ms)` }),
  'superd-queue-os': () => startSuperd({ instances: 1, script: APP, top: ['daemon: { cpu_affinity: 0 }', 'scheduling: os'], app: ['cpu_affinity: [1]', `overload: { max_queue_wait: ${opts.wait}ms }`], name: `superd + overload (max_queue_wait ${opts.wait}ms), scheduling: os` }),
  'superd-overload-os': () => startSuperd({ instances: 1, script: APP, top: ['daemon: { cpu_affinity: 0 }', 'scheduling: os'], app: ['cpu_affinity: [1]', `overload: { max_loop_delay: ${opts.delay}ms }`], name: `superd + overload, scheduling: os` }),
  pm2: () => startPm2({ instances: 1, script: APP, prefix: ON_CPU0, name: 'pm2' }),
  raw: () => startRaw({ instances: 1, script: APP, prefix: ON_CPU0, name: 'raw node:cluster' }),
};

const ms = (v) => (v == null ? '-' : fmt(v, v < 10 ? 1 : 0));

async function measure(key, rate, shape) {
  driverOn(ALL_CPUS);
  const t = await TARGETS[key]();
  try {
    await pinWorker(t.port);
    driverOn(0);
    await openLoop({ port: t.port, rate: rate / opts.factor / 2, seconds: WARMUP_S, timeout: TIMEOUT_MS, shape });
    log(`${t.name}, ${shape}: ${opts.duration} s at ${fmt(rate)} req/s`);
    const before = cpuSnapshot(t);
    const r = await openLoop({ port: t.port, rate, seconds: opts.duration, timeout: TIMEOUT_MS, settleMs: SETTLE_S * 1000, shape });
    const cpu = cpuDelta(before, cpuSnapshot(t));
    const served = r.latency['200'] ?? [];
    const shedKeys = Object.keys(r.latency).filter((k) => k !== '200');
    const shed = shedKeys.flatMap((k) => r.latency[k]).sort((a, b) => a - b);
    // A new connection reaches the worker through a turn of its loop (the daemon's handoff),
    // and its request through the next: split, the refusals' tail says which it is.
    const shedOn = (by) => shedKeys.flatMap((k) => by[k] ?? []).sort((a, b) => a - b);
    const [shedNew, shedKept] = [shedOn(r.onNew), shedOn(r.onKept)];
    return {
      target: t.name,
      shape,
      offered: rate,
      sent: r.sent,
      served: served.length,
      servedRate: (r.inWindow['200'] ?? 0) / opts.duration, // answered during the window, not in the timeouts' tail
      servedP50: quantile(served, 0.5),
      servedP99: quantile(served, 0.99),
      steadyP99: quantile(r.steady['200'] ?? [], 0.99),
      shed: shed.length,
      shedStatus: shedKeys.join(','),
      shedP50: quantile(shed, 0.5),
      shedP99: quantile(shed, 0.99),
      shedKept: shedKept.length,
      shedKeptP99: quantile(shedKept, 0.99),
      shedNew: shedNew.length,
      shedNewP99: quantile(shedNew, 0.99),
      timeouts: r.timeouts,
      errors: r.errors,
      cpu,
    };
  } finally {
    await t.stop();
  }
}

log(`capacity: one worker of bench/overload-app.js (${opts.burn} ms of CPU a request) on CPU 1 ...`);
const cap = await capacity(APP);
const rate = Math.round(cap * opts.factor);
log(`capacity ${fmt(cap)} req/s; offered load ${fmt(rate)} req/s`);
const keys = opts.only.length ? opts.only : Object.keys(TARGETS);
const results = [];
const shapes = Array.isArray(opts.shape) ? opts.shape : opts.shape.split(',');
for (const key of keys) for (const shape of shapes) results.push(await measure(key, rate, shape));

const rows = results.map((r) => [
  r.target, r.shape, fmt(r.servedRate), `${fmt((100 * r.servedRate) / cap)} %`, ms(r.servedP50), ms(r.servedP99), ms(r.steadyP99),
  r.shed ? `${r.shed} (${r.shedStatus})` : '0', ms(r.shedP50), ms(r.shedP99),
  r.shed ? `${ms(r.shedKeptP99)} (${r.shedKept})` : '-', r.shed ? `${ms(r.shedNewP99)} (${r.shedNew})` : '-',
  String(r.timeouts), String(r.errors), fmt(r.cpu.other, 2),
]);
const out = [
  `## Overload: ${opts.factor}x capacity for ${opts.duration} s, open loop`,
  '',
  `\`${command}\` — capacity (1x) ${fmt(cap)} req/s (one worker, ${opts.burn} ms of CPU a request, pinned to CPU 1, closed-loop autocannon -c 4); `
    + `offered ${fmt(rate)} req/s at a constant arrival rate (bench/lib/open-loop.js), ${TIMEOUT_MS / 1000} s client timeout; `
    + `latencies from each request's scheduled time; "after ${SETTLE_S} s": the requests scheduled after the first ${SETTLE_S} s at full load, `
    + 'while the clients\' connection pool grows (each new connection waits for the busy worker to take it); '
    + '"other load": cores busy with other jobs during the window.',
  '',
  table(['target', 'clients', 'served req/s', 'of 1x', 'served p50 ms', 'served p99 ms', `p99 after ${SETTLE_S} s`, 'refused', 'refused p50 ms', 'refused p99 ms',
    'refused p99 ms, kept-alive connection (count)', 'refused p99 ms, new connection (count)', 'timeouts', 'errors', 'other load'], rows),
];
process.stdout.write(`${out.join('\n')}\n`);
const dir = path.join(ROOT, 'bench/results');
fs.mkdirSync(dir, { recursive: true });
fs.writeFileSync(path.join(dir, 'overload.json'), `${JSON.stringify({ command, capacity: cap, rate, results, leaks }, null, 2)}\n`);
log('wrote bench/results/overload.json');
if (leaks.length) log(`LEAKS: ${JSON.stringify(leaks)}`);
await sleep(0);
