#!/usr/bin/env node
// superd benchmark driver: `npm run bench` (see bench/README.md).
//   --duration S   seconds of measured load per target and round (default 10)
//   --rounds N     throughput rounds; each runs raw, superd, pm2 in turn (default 3)
//   --runs R       timed runs of each CLI command (default 15)
//   --only throughput|cli
// Prints markdown tables and writes bench/results/latest.json.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { spawn } from 'node:child_process';
import autocannon from 'autocannon';
import { median, min, max, ratio, fmt, table } from './stats.js';
import {
  ROOT, SUPER_BIN, PM2_BIN, startRaw, startSuperd, startPm2, stopAll, cpuSnapshot, cpuDelta, killEverythingSync, leaks,
} from './targets.js';
import { benchArgs } from './lib/args.js';

const WARMUP_S = 2;
const CONNECTIONS = 50;

const log = (s) => process.stderr.write(`${s}\n`); // progress on stderr, results on stdout

// --- cleanup on any exit: Ctrl-C stops targets gracefully (bounded), 'exit' sweeps by marker
let interrupted = false;
for (const sig of ['SIGINT', 'SIGTERM', 'SIGHUP']) {
  process.on(sig, async () => {
    if (interrupted) process.exit(130); // second Ctrl-C: the 'exit' sweep still SIGKILLs
    interrupted = true;
    log(`\n${sig}: stopping everything the bench started...`);
    const timer = setTimeout(() => process.exit(130), 15000);
    await stopAll();
    clearTimeout(timer);
    process.exit(130);
  });
}
process.on('exit', killEverythingSync);

// --- 1. throughput

function load(port, duration) {
  // keep-alive is autocannon's default; one request in flight per connection.
  return autocannon({ url: `http://127.0.0.1:${port}/`, connections: CONNECTIONS, pipelining: 1, duration });
}

/** @type {[string, (o: {instances: number}) => Promise<any>][]} */
const STARTERS = [['raw node:cluster', startRaw], ['superd', startSuperd], ['pm2', startPm2]];

async function throughput({ duration, rounds }) {
  const samples = Object.fromEntries(STARTERS.map(([name]) => [name, []]));
  for (let r = 1; r <= rounds; r++) {
    for (const [name, start] of STARTERS) {
      // Only the target under test runs during its load: each is started and stopped here.
      const t = await start({ instances: 2 });
      try {
        await load(t.port, WARMUP_S);
        const before = cpuSnapshot(t);
        const res = await load(t.port, duration);
        const cpu = cpuDelta(before, cpuSnapshot(t));
        const s = {
          round: r,
          rps: res.requests.average,
          total: res.requests.total,
          sent: res.requests.sent,
          p50: res.latency.p50,
          p99: res.latency.p99,
          errors: res.errors,
          timeouts: res.timeouts,
          non2xx: res.non2xx,
          cpu_cores: cpu, // target / driver (autocannon) / other processes / steal
        };
        samples[name].push(s);
        log(`  round ${r}/${rounds} ${name}: ${fmt(s.rps)} req/s, p99 ${s.p99} ms, errors ${s.errors}, non-2xx ${s.non2xx}; `
          + `cores: target ${fmt(cpu.target, 2)}, autocannon ${fmt(cpu.driver, 2)}, other ${fmt(cpu.other, 2)}, steal ${fmt(cpu.steal, 2)}`);
      } finally {
        await t.stop();
      }
    }
  }
  const rawRps = median(samples['raw node:cluster'].map((s) => s.rps));
  const rows = STARTERS.map(([name]) => {
    const ss = samples[name];
    const rps = median(ss.map((s) => s.rps));
    return {
      target: name,
      rps,
      p99_ms: median(ss.map((s) => s.p99)),
      errors: ss.reduce((a, s) => a + s.errors, 0),
      non2xx: ss.reduce((a, s) => a + s.non2xx, 0),
      vs_raw: ratio(rps, rawRps),
      rounds: ss,
    };
  });
  const title = `## Cluster throughput (hello, 2 workers, ${CONNECTIONS} keep-alive connections, ${duration} s x ${rounds} rounds after ${WARMUP_S} s warm-up, medians)`;
  const md = table(
    ['target', 'req/s', 'p99 ms', 'errors', 'non-2xx', 'vs raw cluster', 'req/s per round', 'target CPU (cores)', 'other load (cores)'],
    rows.map((x) => [x.target, fmt(x.rps), fmt(x.p99_ms, 1), String(x.errors), String(x.non2xx), fmt(x.vs_raw, 3),
      x.rounds.map((s) => fmt(s.rps)).join(' / '),
      fmt(median(x.rounds.map((s) => s.cpu_cores.target)), 2),
      x.rounds.map((s) => fmt(s.cpu_cores.other + s.cpu_cores.steal, 2)).join(' / ')]),
  );
  return { title, md, rows };
}

// --- 2. CLI wall time

/** Wall time of one command, spawn to exit, in ms. Output is discarded; a failure aborts. */
function timeCommand(cmd, args, env) {
  return new Promise((resolve, reject) => {
    const t0 = process.hrtime.bigint();
    const child = spawn(cmd, args, { cwd: ROOT, env, stdio: 'ignore' });
    child.on('error', reject);
    child.on('exit', (code, signal) => {
      const ms = Number(process.hrtime.bigint() - t0) / 1e6;
      if (code === 0) resolve(ms);
      else reject(new Error(`${[path.basename(cmd), ...args].join(' ')} failed (${signal ?? `exit ${code}`})`));
    });
  });
}

async function cliTimes({ runs }) {
  const cmds = [
    { name: 'node -e 0', cmd: process.execPath, args: ['-e', '0'] },
    { name: 'super ls', cmd: process.execPath, args: [SUPER_BIN, 'ls'] },
    { name: 'pm2 ls', cmd: PM2_BIN, args: ['ls'] },
  ];
  // Both managers up at once with 4 workers each, so each `ls` has 4 workers to report
  // and all three commands run against the same background.
  const superd = await startSuperd({ instances: 4 });
  let pm2;
  try {
    pm2 = await startPm2({ instances: 4 });
    const envs = { 'node -e 0': process.env, 'super ls': superd.env, 'pm2 ls': pm2.env };
    for (const c of cmds) c.env = envs[c.name];
    await new Promise((r) => setTimeout(r, 2000)); // let both settle after the starts
    for (const c of cmds) { c.ms = []; await timeCommand(c.cmd, c.args, c.env); } // untimed: warm caches
    for (let r = 0; r < runs; r++) {
      // Interleaved, and the order rotates each run so no command always goes first.
      for (let i = 0; i < cmds.length; i++) {
        const c = cmds[(i + r) % cmds.length];
        c.ms.push(await timeCommand(c.cmd, c.args, c.env));
      }
    }
  } finally {
    await Promise.allSettled([superd.stop(), pm2?.stop()]);
  }
  const base = median(cmds[0].ms);
  const rows = cmds.map((c) => ({
    command: c.name,
    median_ms: median(c.ms),
    min_ms: min(c.ms),
    max_ms: max(c.ms),
    vs_node: ratio(median(c.ms), base),
    runs_ms: c.ms,
  }));
  const title = `## CLI wall time (4 workers up under superd and under pm2, ${runs} interleaved runs, medians)`;
  const md = table(
    ['command', 'median ms', 'min ms', 'max ms', 'vs node -e 0', 'over node -e 0 ms'],
    rows.map((x) => [x.command, fmt(x.median_ms, 1), fmt(x.min_ms, 1), fmt(x.max_ms, 1), fmt(x.vs_node, 2), fmt(x.median_ms - base, 1)]),
  );
  const ratios = rows.slice(1).map((x) => `${x.command} / node -e 0 = ${fmt(x.vs_node, 2)}`).join(', ');
  return { title, md: `${md}\n\n${ratios}`, rows };
}

// --- main

function version(pkg) {
  try {
    return JSON.parse(fs.readFileSync(path.join(ROOT, 'node_modules', pkg, 'package.json'), 'utf8')).version;
  } catch {
    return '?';
  }
}

const opts = benchArgs(process.argv.slice(2), {
  defaults: { duration: 10, rounds: 3, runs: 15, only: null },
  fractional: ['duration'],
  choices: { only: ['throughput', 'cli'] },
  usage: 'node bench/run.js [--duration 10] [--rounds 3] [--runs 15] [--only throughput|cli]',
});
const command = ['node', 'bench/run.js', ...process.argv.slice(2)].join(' ');
const cpus = os.cpus();
const env = `node ${process.version}, ${os.availableParallelism()} CPUs (${cpus[0]?.model.trim() ?? '?'}), ${os.platform()} ${os.release()}, `
  + `autocannon ${version('autocannon')}, pm2 ${version('pm2')}; command: \`${command}\``;
const results = { date: new Date().toISOString(), command, node: process.version, cpus: os.availableParallelism(), cpu_model: cpus[0]?.model.trim(), options: opts };
const out = [`# superd bench`, '', env];
let failed = false;
try {
  if (opts.only !== 'cli') {
    log(`throughput: ${opts.rounds} rounds x 3 targets x (${WARMUP_S} s warm-up + ${opts.duration} s)...`);
    const t = await throughput(opts);
    results.throughput = t.rows;
    out.push('', t.title, '', t.md);
  }
  if (opts.only !== 'throughput') {
    log(`cli: ${opts.runs} runs of node -e 0, super ls, pm2 ls...`);
    const c = await cliTimes(opts);
    results.cli = c.rows;
    out.push('', c.title, '', c.md);
  }
} catch (err) {
  failed = true;
  log(`bench failed: ${err.stack ?? err}`);
  await stopAll();
}
if (leaks.length) {
  results.leaks = leaks;
  out.push('', '**Warning: processes still alive after a graceful stop (SIGKILLed):**', ...leaks.map((l) => `- ${l.target}: ${l.processes.join('; ')}`));
}
process.stdout.write(`${out.join('\n')}\n`);
if (!failed) {
  const dir = path.join(ROOT, 'bench/results');
  fs.mkdirSync(dir, { recursive: true });
  fs.writeFileSync(path.join(dir, 'latest.json'), `${JSON.stringify(results, null, 2)}\n`);
  log('wrote bench/results/latest.json');
}
process.exitCode = failed ? 1 : 0;
