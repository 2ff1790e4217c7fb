// node bench/profile.js -- what live diagnostics cost (issue 15). Two sections:
//
// 1. Profile cost: one superd worker (examples/hello, and bench/cpu-app.js, a CPU-bound
//    app) under autocannon on loopback, with and without a `super profile` running. Each
//    round measures both windows, in alternating order (so drift from other jobs on the
//    machine falls on both): `--load` seconds of load alone, and `--load` seconds of load
//    that start LEAD_MS after `super profile <app>#0 --duration <load + 2>s --out FILE` was
//    spawned (the profile covers the whole window: the CLI starts and the daemon relays in
//    well under LEAD_MS, and the profile lasts one second past the window). The row is
//    the median over rounds of each window's req/s and of the per-round ratio, and the
//    same for the worker's CPU time per request (robust to other jobs on the machine).
//    PM2 is not measured: its CPU profiling is part of its paid service (pm2.io), there is
//    no free equivalent to compare with.
// 2. Daemon loop during a heap snapshot: one worker of bench/heap-app.js, which retains
//    about --heap-mb MB of objects, and `super heap <app>#0 --out FILE`. The daemon's
//    event-loop delay is measured two ways: from outside, by the round-trip time of an
//    `ls` request sent every PROBE_MS over one open control connection (the delay any CLI
//    or connection handoff would see), and from inside, by the daemon's own event-loop
//    delay histogram (the `stats` op, reset when the window starts). Same for an idle
//    window first, as the floor. Goal: p99 under 10 ms during the snapshot.
//
//   node bench/profile.js [--rounds 5] [--load 3] [--apps hello,cpu] [--heap-mb 500]
//                         [--only profile|heap] [--out bench/results/profile.json]
//
// Tables (markdown) go to stdout, progress to stderr, the raw numbers to --out.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import autocannon from 'autocannon';
import { median, ratio, fmt, table } from './stats.js';
import { ROOT, SUPER_BIN, HELLO, run, startSuperd, stopAll, cpuSnapshot, cpuDelta, killEverythingSync, sleep } from './targets.js';
import { benchArgs } from './lib/args.js';
import { connect } from '../lib/ipc/client.js';
import { topSelfTime } from '../lib/profiles/profile-summary.js';

const USAGE = 'node bench/profile.js [--rounds 5] [--load 3] [--apps hello,cpu] [--heap-mb 500] [--only profile|heap] [--out bench/results/profile.json]';
const opts = benchArgs(process.argv.slice(2), {
  defaults: { rounds: 5, load: 3, apps: ['hello', 'cpu'], 'heap-mb': 500, only: 'both', out: 'bench/results/profile.json' },
  choices: { apps: ['hello', 'cpu'], only: ['profile', 'heap', 'both'] },
  lists: ['apps'],
  usage: USAGE,
});

const APPS = { hello: HELLO, cpu: path.join(ROOT, 'bench/cpu-app.js') };
const HEAP_APP = path.join(ROOT, 'bench/heap-app.js');
const APP = 'bench-hello'; // the name startSuperd gives its app
const CONNECTIONS = 20;
const WARMUP_S = 1;
const LEAD_MS = 1000; // from spawning `super profile` to the start of the measured load
const PROBE_MS = 10;
const IDLE_PROBE_MS = 3000;
const log = (s) => process.stderr.write(`${s}\n`);
const scratch = fs.mkdtempSync(path.join(os.tmpdir(), 'superd-profile-bench-'));

for (const sig of ['SIGINT', 'SIGTERM', 'SIGHUP']) {
  process.on(sig, async () => {
    log(`\n${sig}: stopping everything the bench started...`);
    setTimeout(() => process.exit(130), 15000).unref();
    await stopAll();
    process.exit(130);
  });
}
process.on('exit', () => {
  killEverythingSync();
  fs.rmSync(scratch, { recursive: true, force: true });
});

/** `super <args>` against target t, timed. Rejects with the CLI's output on failure. */
async function superCli(t, args, timeout) {
  const start = performance.now();
  const out = await run(process.execPath, [SUPER_BIN, ...args], { env: t.env, timeout });
  return { out, ms: performance.now() - start };
}

/** CPU time (ms) a process has used so far, from /proc (10 ms ticks). */
function cpuMs(pid) {
  const f = fs.readFileSync(`/proc/${pid}/stat`, 'latin1').split(') ')[1].split(' ');
  return (Number(f[11]) + Number(f[12])) * 10; // utime + stime, USER_HZ = 100
}

/**
 * One load window: req/s, and the worker's own CPU time per request, which a busy
 * machine does not skew the way it skews req/s (the load generator shares the cores).
 */
async function load(t, seconds, workerPid) {
  const before = cpuSnapshot(t);
  const cpuBefore = cpuMs(workerPid);
  const r = await autocannon({ url: `http://127.0.0.1:${t.port}/`, connections: CONNECTIONS, pipelining: 1, duration: seconds });
  const workerCpuMs = cpuMs(workerPid) - cpuBefore;
  const cpu = cpuDelta(before, cpuSnapshot(t));
  return {
    rps: r.requests.average,
    cpu_us_per_request: (workerCpuMs * 1000) / r.requests.total,
    p99: r.latency.p99,
    errors: r.errors + r.timeouts,
    non2xx: r.non2xx,
    other: cpu.other,
  };
}

/** The pid of the app's one worker (bench-hello#0). */
async function workerPid(t) {
  const client = await connect(t.env.SUPER_HOME);
  try {
    const { apps } = await client.request('ls', {});
    return apps.find((a) => a.name === APP).workers[0].pid;
  } finally {
    client.close();
  }
}

// --- 1. the cost of a profile

async function profileCost(appKey) {
  const t = await startSuperd({ instances: 1, script: APPS[appKey], name: `superd ${appKey}` });
  const rounds = [];
  let lastProfile;
  try {
    const pid = await workerPid(t);
    await load(t, WARMUP_S, pid);
    for (let r = 1; r <= opts.rounds; r++) {
      const out = path.join(scratch, `${appKey}-${r}.cpuprofile`);
      const profiled = async () => {
        const cli = superCli(t, ['profile', `${APP}#0`, '--duration', `${opts.load + 2}s`, '--out', out], 120_000);
        await sleep(LEAD_MS);
        const window = await load(t, opts.load, pid);
        const { ms } = await cli;
        return { ...window, cli_ms: ms, profile_bytes: fs.statSync(out).size };
      };
      const plain = () => load(t, opts.load, pid);
      // Alternate the order, so a trend in the machine's load falls on both windows.
      let base;
      let b;
      if (r % 2) {
        base = await plain();
        b = await profiled();
      } else {
        b = await profiled();
        base = await plain();
      }
      const round = { base, profiled: b, ratio: ratio(b.rps, base.rps), cpu_ratio: ratio(b.cpu_us_per_request, base.cpu_us_per_request) };
      rounds.push(round);
      lastProfile = out;
      log(`  ${appKey} round ${r}/${opts.rounds}: ${fmt(base.rps)} req/s alone, ${fmt(b.rps)} while profiled (x${fmt(round.ratio, 2)}); `
        + `worker CPU ${fmt(base.cpu_us_per_request, 1)} / ${fmt(b.cpu_us_per_request, 1)} µs per request (x${fmt(round.cpu_ratio, 2)}); other load ${fmt(base.other, 2)} / ${fmt(b.other, 2)} cores; profile ${fmt(b.profile_bytes / 1024)} KiB, CLI ${fmt(b.cli_ms)} ms`);
    }
    const top = topSelfTime(JSON.parse(fs.readFileSync(lastProfile, 'utf8')), { limit: 3 });
    log(`  ${appKey}: top self time of the last profile: ${top.map((f) => `${f.functionName} ${f.selfPercent.toFixed(0)}%`).join(', ')}`);
  } finally {
    await t.stop();
  }
  const m = (pick) => median(rounds.map(pick));
  return {
    app: appKey,
    rounds,
    row: [
      appKey === 'hello' ? 'examples/hello' : 'bench/cpu-app.js (CPU-bound)',
      fmt(m((r) => r.base.rps)),
      fmt(m((r) => r.profiled.rps)),
      fmt(m((r) => r.ratio), 2),
      rounds.map((r) => fmt(r.ratio, 2)).join(' '),
      fmt(m((r) => r.base.cpu_us_per_request), 1),
      fmt(m((r) => r.profiled.cpu_us_per_request), 1),
      fmt(m((r) => r.cpu_ratio), 2),
      rounds.map((r) => fmt(r.cpu_ratio, 2)).join(' '),
      `${fmt(m((r) => r.profiled.profile_bytes) / 1024)} KiB`,
      fmt(Math.max(...rounds.flatMap((r) => [r.base.other, r.profiled.other])), 2),
      String(rounds.reduce((n, r) => n + r.base.errors + r.base.non2xx + r.profiled.errors + r.profiled.non2xx, 0)),
    ],
  };
}

// --- 2. the daemon's event loop during a heap snapshot

/**
 * Sends `ls` every PROBE_MS over one connection until stop() is called; each round trip
 * is recorded. A daemon whose loop is blocked answers late, whatever the reason.
 */
function probeDaemon(client) {
  const rtts = [];
  let running = true;
  const done = (async () => {
    while (running) {
      const start = performance.now();
      await client.request('ls', {}, { timeout: 60_000 });
      const rtt = performance.now() - start;
      rtts.push(rtt);
      if (rtt < PROBE_MS) await sleep(PROBE_MS - rtt);
    }
  })();
  return async () => {
    running = false;
    await done;
    return rtts;
  };
}

function percentile(xs, p) {
  const v = [...xs].sort((a, b) => a - b);
  return v.length ? v[Math.min(v.length - 1, Math.ceil((p / 100) * v.length) - 1)] : NaN;
}

/** One measured window: the probe from outside and the daemon's own histogram from inside. */
async function daemonWindow(client, during) {
  await client.request('stats', { reset: true });
  const stop = probeDaemon(client);
  const extra = await during();
  const rtts = await stop();
  const inside = (await client.request('stats', {})).event_loop_delay_ms;
  return { requests: rtts.length, rtt_p50: percentile(rtts, 50), rtt_p99: percentile(rtts, 99), rtt_max: Math.max(...rtts), inside, ...extra };
}

async function heapLoop() {
  const t = await startSuperd({
    instances: 1,
    script: HEAP_APP,
    name: 'superd heap',
    app: [`args: ["${opts['heap-mb']}"]`, 'node_args: ["--max-old-space-size=4096"]', 'listen_timeout: 120s'],
  });
  const client = await connect(t.env.SUPER_HOME);
  try {
    const idle = await daemonWindow(client, () => sleep(IDLE_PROBE_MS));
    log(`  idle: ls p99 ${fmt(idle.rtt_p99, 1)} ms, daemon loop p99 ${idle.inside.p99} ms`);
    const out = path.join(scratch, 'bench.heapsnapshot');
    const snapshot = await daemonWindow(client, async () => {
      const { out: text, ms } = await superCli(t, ['heap', `${APP}#0`, '--out', out], 15 * 60_000);
      const bytes = fs.statSync(out).size;
      fs.rmSync(out);
      return { cli_ms: ms, snapshot_bytes: bytes, cli_out: text.trim() };
    });
    log(`  heap snapshot: ${fmt(snapshot.snapshot_bytes / 1048576)} MiB in ${fmt(snapshot.cli_ms / 1000, 1)} s; `
      + `ls p99 ${fmt(snapshot.rtt_p99, 1)} ms (max ${fmt(snapshot.rtt_max, 1)}), daemon loop p99 ${snapshot.inside.p99} ms (max ${snapshot.inside.max})`);
    const row = (name, w) => [name, String(w.requests), fmt(w.rtt_p50, 1), fmt(w.rtt_p99, 1), fmt(w.rtt_max, 1), fmt(w.inside.p99, 1), fmt(w.inside.max, 1)];
    return { idle, snapshot, rows: [row('idle', idle), row(`during \`super heap\` (${fmt(snapshot.snapshot_bytes / 1048576)} MiB file, ${fmt(snapshot.cli_ms / 1000, 1)} s)`, snapshot)] };
  } finally {
    client.close();
    await t.stop();
  }
}

// --- main

const results = { date: new Date().toISOString(), node: process.version, cpus: os.availableParallelism(), options: opts };
const sections = [];
if (opts.only !== 'heap') {
  results.profile = [];
  for (const appKey of opts.apps) {
    log(`profile cost: ${appKey}, ${opts.rounds} rounds of ${opts.load} s + ${opts.load} s`);
    results.profile.push(await profileCost(appKey));
  }
  sections.push(`### Throughput of one worker while \`super profile\` runs (autocannon -c ${CONNECTIONS}, ${opts.load} s windows, median of ${opts.rounds} rounds)\n\n`
    + table(['app', 'req/s alone', 'req/s profiled', 'profiled / alone', 'per round',
      'worker CPU µs / request alone', 'profiled', 'profiled / alone', 'per round', 'profile size', 'max other load (cores)', 'errors + non-2xx'],
      results.profile.map((p) => p.row)));
}
if (opts.only !== 'profile') {
  log(`daemon loop during a heap snapshot of a worker holding ~${opts['heap-mb']} MB`);
  results.heap = await heapLoop();
  sections.push(`### The daemon's event loop during \`super heap\` of a worker holding ~${opts['heap-mb']} MB (\`ls\` every ${PROBE_MS} ms over one connection)\n\n`
    + table(['window', 'ls requests', 'ls round trip p50 (ms)', 'p99 (ms)', 'max (ms)', 'daemon loop delay p99 (ms)', 'max (ms)'], results.heap.rows));
}
fs.mkdirSync(path.dirname(path.resolve(ROOT, opts.out)), { recursive: true });
fs.writeFileSync(path.resolve(ROOT, opts.out), `${JSON.stringify(results, null, 2)}\n`);
process.stdout.write(`${sections.join('\n\n')}\n`);
