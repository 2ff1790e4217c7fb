// node bench/inlining.js -- what `node_args: [--no-turbo-inlining]` costs a CPU-bound app
// (the way to have `super profile` charge every function its own self time, see
// docs/diagnostics.md). For each app (bench/cpu-app.js; examples/fib, GET / = fib(10000)),
// one superd worker with the default flags and one with --no-turbo-inlining run side by
// side; each round loads one then the other for `--load` seconds (order alternating, so a
// drift in the machine's load falls on both) with autocannon on loopback. The row is the
// median over rounds of each one's req/s and of the per-round ratio, and the same for the
// worker's own CPU time per request (robust to other jobs on the machine). Then, for each
// worker, `--profiles` CPU profiles of 1.5 s under the same load: how many name the app's
// hot function (cpu-app.js: work; fib: fib) as the app frame with the most self time,
// rather than the request handler V8 inlined it into. Last, the CPU time of three kernels
// run in a plain node (bench/lib/inlining-kernels.js: the two apps' work, and code made of
// small methods and closures, which inlining helps most), with and without the flag,
// alternating, `--rounds` pairs, median of the per-pair ratio.
//
//   node bench/inlining.js [--rounds 5] [--load 3] [--profiles 4] [--apps cpu,fib] [--out bench/results/inlining.json]
//
// A table (markdown) goes to stdout, progress to stderr, the raw numbers to --out.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import autocannon from 'autocannon';
import { median, ratio, fmt, table } from './stats.js';
import { ROOT, SUPER_BIN, run, startSuperd, stopAll, killEverythingSync } from './targets.js';
import { topSelfTime } from '../lib/profiles/profile-summary.js';
import { benchArgs } from './lib/args.js';
import { connect } from '../lib/ipc/client.js';

const USAGE = 'node bench/inlining.js [--rounds 5] [--load 3] [--profiles 4] [--apps cpu,fib] [--out bench/results/inlining.json]';
const opts = benchArgs(process.argv.slice(2), {
  defaults: { rounds: 5, load: 3, profiles: 4, apps: ['cpu', 'fib'], out: 'bench/results/inlining.json' },
  choices: { apps: ['cpu', 'fib'] },
  lists: ['apps'],
  usage: USAGE,
});
const APPS = { cpu: path.join(ROOT, 'bench/cpu-app.js'), fib: path.join(ROOT, 'examples/fib/server.js') };
// The hot app function of each app whose profile is checked (fib's time is in BigInt builtins).
const HOT = { cpu: 'work' };
const KERNEL_RUNS = { work: 400, fib: 100, small: 50 };
const CONNECTIONS = 20;
const WARMUP_S = 2;
const log = (s) => process.stderr.write(`${s}\n`);
process.on('exit', killEverythingSync);
for (const sig of ['SIGINT', 'SIGTERM']) process.on(sig, () => stopAll().finally(() => process.exit(130)));

function cpuMs(pid) {
  const f = fs.readFileSync(`/proc/${pid}/stat`, 'latin1').split(') ')[1].split(' ');
  return (Number(f[11]) + Number(f[12])) * 10; // utime + stime, USER_HZ = 100
}

async function workerPid(t) {
  const client = await connect(t.env.SUPER_HOME);
  try {
    const { apps } = await client.request('ls', {});
    return apps[0].workers[0].pid;
  } finally {
    client.close();
  }
}

async function load(t, pid, seconds) {
  const before = cpuMs(pid);
  const r = await autocannon({ url: `http://127.0.0.1:${t.port}/`, connections: CONNECTIONS, duration: seconds });
  return { rps: r.requests.average, cpu_us_per_request: ((cpuMs(pid) - before) * 1000) / r.requests.total, errors: r.errors + r.non2xx };
}

/** The app frame (a file:// function) with the most self time in a profile of `t`'s worker under load. */
async function topAppFrame(t, appKey, i) {
  const out = path.join(os.tmpdir(), `superd-inlining-${process.pid}-${appKey}-${i}.cpuprofile`);
  const profiling = run(process.execPath, [SUPER_BIN, 'profile', 'bench-hello#0', '--duration', '1500ms', '--out', out, '--json'], { env: t.env, timeout: 120_000 });
  await autocannon({ url: `http://127.0.0.1:${t.port}/`, connections: CONNECTIONS, duration: 2 });
  await profiling;
  try {
    const rows = topSelfTime(JSON.parse(fs.readFileSync(out, 'utf8')), { limit: Infinity });
    return rows.find((r) => r.url.startsWith('file:'))?.functionName ?? null;
  } finally {
    for (const f of [out, out.replace(/\.cpuprofile$/, '.html')]) fs.rmSync(f, { force: true });
  }
}

async function measure(appKey) {
  const script = APPS[appKey];
  const plain = await startSuperd({ instances: 1, script, name: `${appKey} default` });
  const noInline = await startSuperd({ instances: 1, script, name: `${appKey} no-inlining`, app: ['node_args: ["--no-turbo-inlining"]'] });
  const rounds = [];
  const tops = { default: [], no_inlining: [] };
  try {
    const pids = [await workerPid(plain), await workerPid(noInline)];
    await load(plain, pids[0], WARMUP_S);
    await load(noInline, pids[1], WARMUP_S);
    for (let r = 1; r <= opts.rounds; r++) {
      const first = r % 2 ? 0 : 1;
      const out = [];
      out[first] = await load(first ? noInline : plain, pids[first], opts.load);
      out[1 - first] = await load(first ? plain : noInline, pids[1 - first], opts.load);
      rounds.push({ default: out[0], no_inlining: out[1] });
      log(`${appKey} round ${r}: ${fmt(out[0].rps)} vs ${fmt(out[1].rps)} req/s`);
    }
    for (let i = 0; HOT[appKey] && i < opts.profiles; i++) {
      tops.default.push(await topAppFrame(plain, appKey, `d${i}`));
      tops.no_inlining.push(await topAppFrame(noInline, appKey, `n${i}`));
      log(`${appKey} profile ${i + 1}: top app frame ${tops.default.at(-1)} vs ${tops.no_inlining.at(-1)}`);
    }
  } finally {
    await stopAll();
  }
  const m = (f) => median(rounds.map(f));
  return {
    app: appKey,
    rounds,
    rps: [m((r) => r.default.rps), m((r) => r.no_inlining.rps)],
    rps_ratio: m((r) => ratio(r.no_inlining.rps, r.default.rps)),
    cpu_us: [m((r) => r.default.cpu_us_per_request), m((r) => r.no_inlining.cpu_us_per_request)],
    cpu_ratio: m((r) => ratio(r.no_inlining.cpu_us_per_request, r.default.cpu_us_per_request)),
    tops,
    right: HOT[appKey] ? [tops.default.filter((f) => f === HOT[appKey]).length, tops.no_inlining.filter((f) => f === HOT[appKey]).length] : null,
  };
}

async function kernelCost(kernel) {
  const once = async (flags) => Number(await run(process.execPath, [...flags, path.join(ROOT, 'bench/lib/inlining-kernels.js'), kernel, String(KERNEL_RUNS[kernel])]));
  const pairs = [];
  for (let r = 1; r <= opts.rounds; r++) {
    const pair = {};
    for (const variant of r % 2 ? ['default', 'no_inlining'] : ['no_inlining', 'default']) pair[variant] = await once(variant === 'default' ? [] : ['--no-turbo-inlining']);
    pairs.push(pair);
    log(`kernel ${kernel} round ${r}: ${pair.default} vs ${pair.no_inlining} µs`);
  }
  return {
    kernel,
    pairs,
    us: [median(pairs.map((p) => p.default)), median(pairs.map((p) => p.no_inlining))],
    ratio: median(pairs.map((p) => ratio(p.no_inlining, p.default))),
  };
}

const results = [];
for (const app of opts.apps) results.push(await measure(app));
const kernels = [];
for (const kernel of Object.keys(KERNEL_RUNS)) kernels.push(await kernelCost(kernel));
fs.mkdirSync(path.dirname(path.resolve(opts.out)), { recursive: true });
fs.writeFileSync(opts.out, `${JSON.stringify({ opts, node: process.version, load: os.loadavg(), results, kernels }, null, 2)}\n`);
process.stdout.write(`${table(
  ['app', 'req/s default', 'req/s --no-turbo-inlining', 'ratio', 'CPU µs/req default', 'CPU µs/req --no-turbo-inlining', 'ratio', 'profiles naming the hot function: default', '--no-turbo-inlining'],
  results.map((r) => [r.app, fmt(r.rps[0]), fmt(r.rps[1]), fmt(r.rps_ratio, 2), fmt(r.cpu_us[0]), fmt(r.cpu_us[1]), fmt(r.cpu_ratio, 2),
    ...(r.right ? r.right.map((n) => `${n} of ${opts.profiles}`) : ['n/a', 'n/a'])]),
)}\n\n${table(
  ['kernel (plain node)', 'CPU µs a run, default', '--no-turbo-inlining', 'ratio (median of pairs)'],
  kernels.map((k) => [k.kernel, fmt(k.us[0], 1), fmt(k.us[1], 1), fmt(k.ratio, 2)]),
)}\n`);
