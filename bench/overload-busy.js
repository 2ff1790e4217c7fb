#!/usr/bin/env node
// A healthy app on a busy host (issue 39): `node bench/overload-busy.js` (under `flock
// /tmp/superd-bench.lock`, see bench/README.md). One worker of bench/overload-app.js
// (BURN_MS of CPU per request), not pinned, at --factor (0.3) x its capacity (measured
// first, closed-loop, on a CPU of its own), while --hogs (6) CPU-bound programs run, each in
// its own session (`setsid node -e 'for(;;){}'`: its own autogroup, so the scheduler gives
// it a real share, at normal priority). Each target gets that open-loop load (5 s timeout)
// for --duration seconds per client shape and scheduling: superd without `overload:`, and
// with the docs' example `max_queue_wait` (--wait). A healthy app must refuse (almost)
// nothing: the goal is refused <= 1 %, and never more timeouts than without `overload:`.
// Prints a markdown table (stdout) and writes bench/results/overload-busy.json.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { spawn } from 'node:child_process';
import { fmt, table } from './stats.js';
import { ROOT, startSuperd, stopAllOnExit, sleep } from './targets.js';
import { capacity, driverOn, ALL_CPUS } from './lib/pinned-worker.js';
import { benchArgs } from './lib/args.js';
import { openLoop, quantile } from './lib/open-loop.js';

const APP = path.join(ROOT, 'bench/overload-app.js');
const TIMEOUT_MS = 5000;
const log = (s) => process.stderr.write(`${s}\n`);

const opts = benchArgs(process.argv.slice(2), {
  defaults: { duration: 10, factor: 0.3, burn: 10, wait: 500, hogs: 6, shape: 'keep-alive,new-connection', scheduling: 'round-robin,os' },
  fractional: ['factor'],
  lists: ['shape', 'scheduling'],
  choices: { shape: ['keep-alive', 'new-connection'], scheduling: ['round-robin', 'os'] },
  usage: 'node bench/overload-busy.js [--duration 10] [--factor 0.3] [--burn 10] [--wait 500] [--hogs 6] [--shape keep-alive,new-connection] [--scheduling round-robin,os]',
});
const command = ['node', 'bench/overload-busy.js', ...process.argv.slice(2)].join(' ');
stopAllOnExit(['SIGINT', 'SIGTERM']);
const list = (v) => (Array.isArray(v) ? v : v.split(',')); // a default is the unsplit string
process.env.BURN_MS = String(opts.burn); // the targets' workers inherit it

/** Starts the CPU-bound programs, each the leader of its own session; returns a stop(). */
function startHogs(n) {
  // detached: Node calls setsid() in the child, as `setsid node` does (without its fork).
  const hogs = Array.from({ length: n }, () => spawn(process.execPath, ['-e', 'for(;;){}'], { stdio: 'ignore', detached: true }));
  const stop = () => {
    for (const h of hogs) {
      try {
        process.kill(-h.pid, 'SIGKILL'); // it leads its session and group
      } catch {}
    }
  };
  process.once('exit', stop);
  return stop;
}

async function measure(overload, scheduling, shape, rate) {
  const top = scheduling === 'os' ? ['scheduling: os'] : [];
  const app = overload ? [`overload: { max_queue_wait: ${opts.wait}ms }`] : [];
  const name = `superd${overload ? ` + overload (max_queue_wait ${opts.wait}ms)` : ''}, ${scheduling}`;
  const t = await startSuperd({ instances: 1, script: APP, top, app, name });
  try {
    await openLoop({ port: t.port, rate, seconds: 2, timeout: TIMEOUT_MS, shape }); // warm-up
    const load = os.loadavg()[0];
    log(`${name}, ${shape}: ${opts.duration} s at ${fmt(rate)} req/s (load average ${fmt(load, 1)})`);
    const r = await openLoop({ port: t.port, rate, seconds: opts.duration, timeout: TIMEOUT_MS, shape });
    const served = r.latency['200'] ?? [];
    const refused = Object.entries(r.byStatus).filter(([k]) => k !== '200').reduce((n, [, v]) => n + v, 0);
    return { target: name, shape, sent: r.sent, served: served.length, servedP50: quantile(served, 0.5), servedP99: quantile(served, 0.99), refused, timeouts: r.timeouts, errors: r.errors, load };
  } finally {
    await t.stop();
  }
}

log(`capacity: one worker of bench/overload-app.js (${opts.burn} ms of CPU a request) on CPU 1 ...`);
const cap = await capacity(APP);
driverOn(ALL_CPUS);
const rate = Math.round(cap * opts.factor);
log(`capacity ${fmt(cap)} req/s; offered ${fmt(rate)} req/s with ${opts.hogs} CPU-bound programs`);
const stopHogs = startHogs(opts.hogs);
const results = [];
try {
  await sleep(1000);
  for (const scheduling of list(opts.scheduling)) for (const shape of list(opts.shape)) for (const overload of [false, true]) results.push(await measure(overload, scheduling, shape, rate));
} finally {
  stopHogs();
}
const ms = (v) => (v == null ? '-' : fmt(v, v < 10 ? 1 : 0));
const rows = results.map((r) => [r.target, r.shape, String(r.sent), String(r.served), ms(r.servedP50), ms(r.servedP99),
  `${r.refused} (${fmt((100 * r.refused) / r.sent, 1)} %)`, String(r.timeouts), String(r.errors), fmt(r.load, 1)]);
process.stdout.write([
  `## A healthy app on a busy host: ${opts.factor}x capacity with ${opts.hogs} CPU-bound programs`,
  '',
  `\`${command}\` — capacity (1x) ${fmt(cap)} req/s (one worker, ${opts.burn} ms of CPU a request, on a CPU of its own, closed loop); `
    + `offered ${fmt(rate)} req/s open loop for ${opts.duration} s, ${TIMEOUT_MS / 1000} s client timeout, while ${opts.hogs} \`setsid node -e 'for(;;){}'\` run.`,
  '',
  table(['target', 'clients', 'sent', 'served', 'served p50 ms', 'served p99 ms', 'refused', 'timeouts', 'errors', 'load average'], rows),
  '',
].join('\n'));
const dir = path.join(ROOT, 'bench/results');
fs.mkdirSync(dir, { recursive: true });
fs.writeFileSync(path.join(dir, 'overload-busy.json'), `${JSON.stringify({ command, capacity: cap, rate, results }, null, 2)}\n`);
log('wrote bench/results/overload-busy.json');
