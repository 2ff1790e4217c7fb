#!/usr/bin/env node
// Cost of superd's health metrics (issue 4): `npm run bench:metrics` (run it under
// `flock /tmp/superd-bench.lock`, see bench/README.md).
//   1. Supervisor (daemon / primary) CPU % and RSS with 0, 10 and 50 idle workers: superd
//      (agent reports + /proc sampling every second) vs a raw node:cluster primary (no
//      monitoring at all) vs the PM2 daemon; the per-worker cost must stay flat.
//   2. A CPU-bound app's throughput with and without superd's worker agent (same bare
//      primary both ways): the agent's overhead as a ratio.
//   3. `super monit`'s own CPU while open on 10 workers (in a tmux terminal), and the
//      daemon's CPU meanwhile.
//   --window S   seconds each idle measurement lasts (default 10)
//   --rounds N   rounds; medians are reported (default 3)
//   --requests N requests per agent-overhead run (default 20000)
//   --only idle|agent|monit
//   --app cpu|hello  the app of the agent-overhead part: bench/cpu-app.js (~0.24 ms of JS a
//                request, default) or examples/hello (~25 µs: where a per-request cost shows most)
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { spawn, execFileSync } from 'node:child_process';
import autocannon from 'autocannon';
import { median, ratio, fmt, table } from './stats.js';
import { ROOT, SUPER_BIN, PM2_BIN, startRaw, startSuperd, startPm2, leaks, freePort, run, sleep, stopAllOnExit } from './targets.js';
import { benchArgs } from './lib/args.js';

const HZ = 100;
const log = (s) => process.stderr.write(`${s}\n`);

/** CPU ticks (utime+stime) and RSS (bytes) of one process, from /proc. */
function procStat(pid) {
  const f = fs.readFileSync(`/proc/${pid}/stat`, 'latin1').split(') ')[1].split(' ');
  const rss = Number(/^VmRSS:\s+(\d+)/m.exec(fs.readFileSync(`/proc/${pid}/status`, 'latin1'))[1]) * 1024;
  return { ticks: Number(f[11]) + Number(f[12]), rss };
}

/** CPU % of one core used by `pids` over `seconds`, and their RSS at the end. */
async function measure(pids, seconds) {
  const a = pids.map(procStat);
  const t0 = process.hrtime.bigint();
  await sleep(seconds * 1000);
  const secs = Number(process.hrtime.bigint() - t0) / 1e9;
  const b = pids.map(procStat);
  return pids.map((_, i) => ({ cpu: ((b[i].ticks - a[i].ticks) / HZ / secs) * 100, rss: b[i].rss }));
}

// --- targets with a known supervisor pid ---------------------------------------------

async function superd(n) {
  const t = await startSuperd({ instances: Math.max(1, n) });
  if (n === 0) await run(process.execPath, [SUPER_BIN, 'delete', 'bench-hello'], { env: t.env });
  t.pid = Number(fs.readFileSync(path.join(t.env.SUPER_HOME, 'daemon.pid'), 'utf8'));
  return t;
}

async function pm2(n) {
  const t = await startPm2({ instances: Math.max(1, n) });
  if (n === 0) await run(PM2_BIN, ['delete', 'bench-hello'], { env: t.env });
  t.pid = Number(fs.readFileSync(path.join(t.env.PM2_HOME, 'pm2.pid'), 'utf8'));
  return t;
}

async function raw(n) {
  if (n > 0) return startRaw({ instances: n });
  // A primary with no workers: node:cluster loaded, kept alive by a timer, nothing else.
  const child = spawn(process.execPath, ['--input-type=module', '-e', "import 'node:cluster'; setInterval(() => {}, 1 << 30);"], { detached: true, stdio: 'ignore' });
  await sleep(500);
  return { pid: child.pid, stop: async () => { try { process.kill(-child.pid, 'SIGKILL'); } catch {} } };
}

/** @type {[string, (n: number) => Promise<any>][]} */
const SYSTEMS = [['raw node:cluster', raw], ['superd', superd], ['pm2', pm2]];

async function idle({ window, rounds }) {
  const counts = [0, 10, 50];
  const res = {}; // `${system} ${n}` -> [{cpu, rss}]
  for (let r = 1; r <= rounds; r++) {
    for (const n of counts) {
      for (const [name, start] of SYSTEMS) {
        const t = await start(n);
        try {
          await sleep(3000); // settle: startup work is not idle cost
          const [m] = await measure([t.pid], window);
          (res[`${name} ${n}`] ??= []).push(m);
          log(`round ${r}: ${name} with ${n} idle workers: ${fmt(m.cpu, 2)} % CPU, ${fmt(m.rss / 1048576, 1)} MiB`);
        } finally {
          await t.stop();
        }
      }
    }
  }
  const rows = [];
  const summary = {};
  for (const [name] of SYSTEMS) {
    const cpu = counts.map((n) => median(res[`${name} ${n}`].map((m) => m.cpu)));
    const rss = counts.map((n) => median(res[`${name} ${n}`].map((m) => m.rss / 1048576)));
    const perWorker = (cpu[2] - cpu[0]) / 50;
    summary[name] = { cpu, rss_mib: rss, cpu_per_worker: perWorker };
    rows.push([name, ...cpu.map((c) => fmt(c, 2)), ...rss.map((m) => fmt(m, 1)), fmt(perWorker, 3)]);
  }
  return {
    summary,
    table: table(['supervisor process', 'CPU % (0)', 'CPU % (10)', 'CPU % (50)', 'RSS MiB (0)', 'RSS MiB (10)', 'RSS MiB (50)', 'CPU % per worker (50 vs 0)'], rows),
  };
}

// --- agent overhead -------------------------------------------------------------------

const AGENT_APPS = { cpu: 'bench/cpu-app.js', hello: 'examples/hello/server.js' };

async function agentPrimary(withAgent, app) {
  const port = await freePort();
  const child = spawn(process.execPath, [path.join(ROOT, 'bench/agent-primary.js')], {
    detached: true,
    stdio: ['ignore', process.stderr, 'inherit', 'ipc'], // the app's output (hello's listening line) off the results on stdout
    env: { ...process.env, PORT: String(port), WORKERS: '1', AGENT: withAgent ? '1' : '0', APP: path.join(ROOT, AGENT_APPS[app]) },
  });
  await new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error('agent primary: not listening within 15 s')), 15000);
    child.once('message', () => { clearTimeout(timer); resolve(); });
  });
  child.disconnect();
  const exited = new Promise((r) => child.once('exit', r));
  const body = await (await fetch(`http://127.0.0.1:${port}/`)).text();
  return { port, worker: Number(/pid (\d+)/.exec(body)[1]), stop: async () => { try { process.kill(-child.pid, 'SIGTERM'); } catch {} await Promise.race([exited, sleep(4000)]); try { process.kill(-child.pid, 'SIGKILL'); } catch {} } };
}

async function agent({ rounds, requests, app }) {
  // Two measures: req/s (what a user sees, but at the mercy of everything else running on
  // this shared machine) and the worker's own CPU time per request over a fixed number of
  // requests (utime+stime from /proc: only time the worker itself ran counts).
  const runs = { without: [], with: [] };
  for (let r = 1; r <= rounds; r++) {
    // Alternate the order so drift on this shared machine does not favour one side.
    for (const withAgent of r % 2 ? [false, true] : [true, false]) {
      const t = await agentPrimary(withAgent, app);
      try {
        await autocannon({ url: `http://127.0.0.1:${t.port}/`, connections: 10, amount: 2000 }); // warm-up
        const before = procStat(t.worker).ticks;
        const t0 = process.hrtime.bigint();
        const out = await autocannon({ url: `http://127.0.0.1:${t.port}/`, connections: 10, amount: requests });
        // Whole-run rate: autocannon's per-second average is coarse over a few seconds.
        const rps = out.requests.total / (Number(process.hrtime.bigint() - t0) / 1e9);
        const cpuUs = ((procStat(t.worker).ticks - before) * (1e6 / HZ)) / requests;
        runs[withAgent ? 'with' : 'without'].push({ rps, cpuUs });
        log(`round ${r}: ${app === 'cpu' ? 'CPU-bound app' : 'hello'} ${withAgent ? 'with' : 'without'} the agent: ${fmt(rps)} req/s, ${fmt(cpuUs, 1)} µs CPU/request`);
      } finally {
        await t.stop();
      }
    }
  }
  const med = (side, k) => median(runs[side].map((x) => x[k]));
  const list = (side, k, d) => runs[side].map((x) => fmt(x[k], d)).join(', ');
  // Capacity: a CPU-bound worker answers at most 1 s / (CPU per request) requests per second.
  const cap = (side) => 1e6 / med(side, 'cpuUs');
  return {
    summary: { cpu_us_with: med('with', 'cpuUs'), cpu_us_without: med('without', 'cpuUs'), cpu_ratio: ratio(med('with', 'cpuUs'), med('without', 'cpuUs')), capacity_with: cap('with'), capacity_without: cap('without'), capacity_ratio: ratio(cap('with'), cap('without')), rps_with: med('with', 'rps'), rps_without: med('without', 'rps'), runs },
    table: table([`${app === 'cpu' ? 'CPU-bound app' : 'examples/hello'}, 1 worker`, 'worker CPU µs / request (median)', 'capacity req/s (1 s / CPU per request)', 'µs per run', 'wall req/s (median; whole seconds, noisy)'], [
      ['without agent', fmt(med('without', 'cpuUs'), 1), fmt(cap('without')), list('without', 'cpuUs', 1), fmt(med('without', 'rps'))],
      ['with agent (metrics every 1 s)', fmt(med('with', 'cpuUs'), 1), fmt(cap('with')), list('with', 'cpuUs', 1), fmt(med('with', 'rps'))],
      ['ratio with / without', fmt(ratio(med('with', 'cpuUs'), med('without', 'cpuUs')), 3), fmt(ratio(cap('with'), cap('without')), 3), '', fmt(ratio(med('with', 'rps'), med('without', 'rps')), 3)],
    ]),
  };
}

// --- super monit ----------------------------------------------------------------------

async function monit({ window, rounds }) {
  try {
    execFileSync('tmux', ['-V'], { stdio: 'ignore' });
  } catch {
    return { summary: null, table: '(tmux is not installed: `super monit` not measured)' };
  }
  const res = { monit: [], daemonWith: [], daemonWithout: [] };
  for (let r = 1; r <= rounds; r++) {
    const t = await superd(10);
    const sock = path.join(os.tmpdir(), `superd-bench-tmux-${process.pid}`);
    try {
      await sleep(3000);
      const [before] = await measure([t.pid], window);
      execFileSync('tmux', ['-S', sock, 'new-session', '-d', '-x', '120', '-y', '40', `exec env SUPER_HOME=${t.env.SUPER_HOME} ${process.execPath} ${SUPER_BIN} monit`]);
      const pid = Number(execFileSync('tmux', ['-S', sock, 'list-panes', '-F', '#{pane_pid}'], { encoding: 'utf8' }).trim());
      await sleep(2000);
      const [m, d] = await measure([pid, t.pid], window);
      res.monit.push(m);
      res.daemonWith.push(d);
      res.daemonWithout.push(before);
      log(`round ${r}: super monit ${fmt(m.cpu, 2)} % CPU (${fmt(m.rss / 1048576, 1)} MiB); daemon ${fmt(before.cpu, 2)} % without it, ${fmt(d.cpu, 2)} % with it`);
    } finally {
      try { execFileSync('tmux', ['-S', sock, 'kill-server'], { stdio: 'ignore' }); } catch {}
      await t.stop();
    }
  }
  const med = (xs, k) => median(xs.map((x) => x[k]));
  return {
    summary: { monit_cpu: med(res.monit, 'cpu'), monit_rss: med(res.monit, 'rss'), daemon_cpu_without: med(res.daemonWithout, 'cpu'), daemon_cpu_with: med(res.daemonWith, 'cpu') },
    table: table(['10 workers, 1 s interval', 'CPU % (median)', 'RSS MiB'], [
      ['super monit (open, redrawing)', fmt(med(res.monit, 'cpu'), 2), fmt(med(res.monit, 'rss') / 1048576, 1)],
      ['superd daemon, monit closed', fmt(med(res.daemonWithout, 'cpu'), 2), fmt(med(res.daemonWithout, 'rss') / 1048576, 1)],
      ['superd daemon, monit open', fmt(med(res.daemonWith, 'cpu'), 2), fmt(med(res.daemonWith, 'rss') / 1048576, 1)],
    ]),
  };
}

// --- main -----------------------------------------------------------------------------

stopAllOnExit(['SIGINT', 'SIGTERM']);

const opts = benchArgs(process.argv.slice(2), {
  defaults: { window: 10, rounds: 3, requests: 20000, only: null, app: 'cpu' },
  fractional: ['window'],
  choices: { only: ['idle', 'agent', 'monit'], app: Object.keys(AGENT_APPS) },
  usage: 'node bench/metrics.js [--window 10] [--rounds 3] [--requests 20000] [--only idle|agent|monit] [--app cpu|hello]',
});
const results = { date: new Date().toISOString(), node: process.version, cpus: os.availableParallelism(), opts };
const sections = [];
if (!opts.only || opts.only === 'idle') {
  const r = await idle(opts);
  results.idle = r.summary;
  sections.push(`### Supervisor cost with idle workers (median of ${opts.rounds} rounds, ${opts.window} s windows)\n\n${r.table}`);
}
if (!opts.only || opts.only === 'agent') {
  const r = await agent(opts);
  results.agent = r.summary;
  sections.push(`### Worker agent overhead on ${opts.app === 'cpu' ? 'a CPU-bound app' : 'examples/hello'} (autocannon -c 10, ${opts.requests} requests per run, median of ${opts.rounds})\n\n${r.table}`);
}
if (!opts.only || opts.only === 'monit') {
  const r = await monit(opts);
  results.monit = r.summary;
  sections.push(`### super monit (median of ${opts.rounds} rounds, ${opts.window} s windows)\n\n${r.table}`);
}
if (leaks.length) sections.push(`leaked processes (killed): ${JSON.stringify(leaks)}`);
process.stdout.write(`${sections.join('\n\n')}\n\n${os.cpus().length} CPUs, Node ${process.version}; command: \`node bench/metrics.js ${process.argv.slice(2).join(' ')}\`\n`);
fs.writeFileSync(path.join(ROOT, `bench/results/metrics${opts.only ? `-${opts.only}` : ''}.json`), `${JSON.stringify(results, null, 2)}\n`);
