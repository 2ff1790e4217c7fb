// One worker on a CPU of its own, for the load benches (bench/overload.js,
// bench/autoscale.js): CPU pinning with taskset, and the capacity of one pinned worker.
// The driver (the load generator) stays off the worker's CPU while it loads; it starts
// each target with every CPU, as a target's processes inherit its mask.
import os from 'node:os';
import http from 'node:http';
import { execFileSync } from 'node:child_process';
import autocannon from 'autocannon';
import { startRaw, sleep } from '../targets.js';

export const ALL_CPUS = `0-${os.availableParallelism() - 1}`;
/** A command prefix that runs a primary or daemon (and what it forks) on CPU 0. */
export const ON_CPU0 = ['taskset', '-c', '0'];

/** Pins every thread of `pid` to `cpus` (a CPU number or a list like 0-1). */
export const taskset = (cpus, pid) => execFileSync('taskset', ['-a', '-p', '-c', String(cpus), String(pid)], { stdio: 'ignore' });
export const driverOn = (cpus) => taskset(cpus, process.pid);

/** The pid of the worker that answers on `port` (the app answers `pid N`), pinned to `cpu`: PM2 and a bare cluster cannot pin one. */
export async function pinWorker(port, cpu = 1) {
  for (let i = 0; i < 50; i++) {
    const body = await new Promise((resolve, reject) => {
      http.get({ host: '127.0.0.1', port, path: '/', agent: false }, (res) => {
        let b = '';
        res.on('data', (d) => (b += d)).on('end', () => resolve(b));
      }).on('error', reject);
    });
    const pid = Number(/pid (\d+)/.exec(body)?.[1]);
    if (pid) {
      taskset(cpu, pid);
      return pid;
    }
    await sleep(100); // shed (a busy machine): ask again
  }
  throw new Error('the worker never answered with its pid');
}

/** Requests per second one worker of `script` pinned to CPU 1 serves, closed-loop (bare cluster, 4 keep-alive connections). */
export async function capacity(script) {
  driverOn(ALL_CPUS);
  const t = await startRaw({ instances: 1, script, prefix: ON_CPU0, name: 'raw node:cluster' });
  try {
    await pinWorker(t.port);
    driverOn(0);
    return await closedLoopRate(t.port, 4);
  } finally {
    await t.stop();
  }
}

/** Requests per second served on `port` to `connections` keep-alive connections, closed-loop: 2 s of warm-up, then 5 s measured. */
export async function closedLoopRate(port, connections) {
  const url = `http://127.0.0.1:${port}/`;
  await autocannon({ url, connections, duration: 2 }); // warm-up
  const r = await autocannon({ url, connections, duration: 5 });
  return r.requests.average;
}
