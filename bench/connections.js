#!/usr/bin/env node
// node bench/connections.js -- a new connection per request (issue 42): what each way of
// getting connections to the workers costs, side by side. The app is bench/hello-counted.js
// (examples/hello plus a request counter, for the balance), 2 workers by default, and the
// load is wrk (Debian's package: `apt-get install wrk`) with `-H 'Connection: close'`: one
// request per connection, wrk opening a new one for each, as nginx's default upstream,
// HTTP/1.0 clients and health checkers do.
//
// Targets (--targets; the first eight by default, the last three are diagnostics):
//   raw-rr      bench/raw-cluster.js: a bare node:cluster primary, round-robin (Node's default)
//   superd      superd's default (`scheduling: auto`: reuseport where Node has it (22.12+,
//               24), else round-robin through the daemon)
//   superd-rr   superd with `scheduling: round-robin`
//   raw-none    the bare primary with NODE_CLUSTER_SCHED_POLICY=none (one shared socket)
//   superd-os   superd with `scheduling: os`
//   superd-reuseport  superd with `scheduling: reuseport` (a SO_REUSEPORT socket per worker,
//               bound by the daemon; Node 22.12+/23.1+ like reuseport)
//   reuseport   bench/reuse-port-primary.js: N plain processes each listening with
//               reusePort (the kernel balances); only on a Node that has it (22.12+, 23.1+):
//               run the bench itself with that Node (every target then uses it)
//   pm2         pm2 7 cluster mode (`pm2 start -i N`)
//   diagnostics:
//   raw-rr-setsid  raw-rr with each worker exec'd through setsid, as superd starts them:
//               where the kernel groups CPU time by session (autogroups,
//               /proc/sys/kernel/sched_autogroup_enabled = 1) each worker is then a CPU
//               group of its own, as superd's are (and its daemon, as raw-rr's primary)
//   superd-nosetsid  superd's default with no perl/setsid/setpriv on the daemon's PATH: its
//               workers then stay in the daemon's process group and session, as raw-rr's do
//   superd-setsid  superd with setsid and setpriv but no perl on the daemon's PATH: each
//               worker in a session of its own (superd before its workers were process
//               groups in the daemon's session; what a system without perl still gets)
//   raw-rr-agent   raw-rr with superd's worker agent preloaded into the workers
//               (lib/worker/agent.cjs, without a daemon): what the agent alone costs
//   superd-nometrics  superd-rr with `metrics_interval: 0`: the workers time no request
//               (lib/worker/metrics.cjs) and report nothing, what per-request metrics cost
//   superd-reuseport-nometrics  the same on `scheduling: reuseport`
//
// Each round starts every target in turn (the order rotates per round), warms it for
// WARMUP_S, then measures --duration seconds; only the target under test runs. Per target
// and round: req/s (wrk), socket errors and non-2xx, each worker's share of the requests
// served in the window (from the counters), and the CPU the primary/daemon and the
// workers used per 1,000 connections (/proc/<pid>/stat utime+stime around the window).
// Rows are medians over rounds; `vs raw-rr` is the median of the per-round ratios to the
// raw-rr window of the same round.
//
// --profile DIR: every process of each target runs V8's profiler (bench/lib/cpu-profile-preload.cjs,
// through NODE_OPTIONS; written when it exits, so a profile includes boot, warm-up and stop),
// profiles kept in DIR/<target>-<round>/,
// and the top self-time functions of the primary/daemon and of one worker are printed.
//
// --keepalive yes: wrk keeps its connections (no `Connection: close`): the balance and the
// throughput of the same targets under keep-alive load (each worker then serves the
// connections it accepted during the warm-up).
//
// --perf yes: after each measured window, one more of the same length under Linux perf's
// software clock (bench/lib/perf-split.js): the primary's and the workers' CPU per connection
// split into the kernel, the node binary, V8's generated code and libc, kernel time included
// (which --profile cannot see); the measured window itself runs without perf.
//
// --handoff yes: the primary/daemon of each round-robin target times every handoff, from its
// send of a connection to a worker to the worker's receipt (bench/lib/handoff-timer.cjs, over
// the target's whole life: warm-up included); the table gets its p50/p99.
//
//   node bench/connections.js [--duration 5] [--rounds 3] [--workers 2] [--connections 50]
//                             [--targets raw-rr,superd,...] [--profile DIR] [--perf yes] [--handoff yes] [--keepalive yes] [--out bench/results/connections.json]
// Markdown to stdout, progress to stderr, every window's figures to --out.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { spawn, execFileSync } from 'node:child_process';
import { median, fmt, table, ratio } from './stats.js';
import { ROOT, startRaw, startSuperd, startPm2, stopAllOnExit, cpuSnapshot, cpuDelta, sleep } from './targets.js';
import { benchArgs } from './lib/args.js';
import { which } from '../lib/which.js';
import { topSelfTime } from '../lib/profiles/profile-summary.js';
import { perfRecord, perfSplit, perfUnavailable } from './lib/perf-split.js';

const TARGETS = ['raw-rr', 'superd', 'superd-rr', 'raw-none', 'superd-os', 'reuseport', 'superd-reuseport', 'pm2'];
const NEEDS_REUSEPORT = new Set(['reuseport', 'superd-reuseport']);
// Diagnostics, only when named in --targets: what part of superd's layout costs what.
const DIAGNOSTICS = ['superd-nometrics', 'superd-reuseport-nometrics', 'raw-rr-setsid', 'superd-nosetsid', 'superd-setsid', 'raw-rr-agent'];
const USAGE = 'node bench/connections.js [--duration 5] [--rounds 3] [--workers 2] [--connections 50] [--targets raw-rr,superd,superd-rr,raw-none,superd-os,reuseport,superd-reuseport,pm2,superd-nometrics,superd-reuseport-nometrics,raw-rr-setsid,superd-nosetsid,superd-setsid,raw-rr-agent] [--profile DIR] [--perf yes] [--handoff yes] [--keepalive yes] [--out bench/results/connections.json]';
const opts = benchArgs(process.argv.slice(2), {
  defaults: { duration: 5, rounds: 3, workers: 2, connections: 50, targets: TARGETS, profile: '', perf: 'no', handoff: 'no', keepalive: 'no', out: 'bench/results/connections.json' },
  fractional: ['duration'],
  lists: ['targets'],
  choices: { targets: [...TARGETS, ...DIAGNOSTICS], handoff: ['yes', 'no'], perf: ['yes', 'no'], keepalive: ['yes', 'no'] },
  usage: USAGE,
});
opts.handoff = opts.handoff === 'yes';
opts.perf = opts.perf === 'yes';
opts.keepalive = opts.keepalive === 'yes';
const HEADER = opts.keepalive ? [] : ['-H', 'Connection: close'];
const LOAD = opts.keepalive ? 'keep-alive' : "-H 'Connection: close'";
const WARMUP_S = 1;
const APP = path.join(ROOT, 'bench/hello-counted.js');
const log = (s) => process.stderr.write(`${s}\n`);
const scratch = fs.mkdtempSync(path.join(os.tmpdir(), 'superd-conn-bench-'));
stopAllOnExit(['SIGINT', 'SIGTERM']);
process.on('exit', () => fs.rmSync(scratch, { recursive: true, force: true }));

const [major, minor] = process.versions.node.split('.').map(Number);
const hasReusePort = major > 23 || (major === 23 && minor >= 1) || (major === 22 && minor >= 12);
if (opts.perf) {
  const why = perfUnavailable();
  if (why) {
    log(`--perf: ${why}`);
    process.exit(2);
  }
}
const targets = opts.targets.filter((t) => !NEEDS_REUSEPORT.has(t) || hasReusePort);
if (targets.length < opts.targets.length) log(`reuseport skipped: Node ${process.version} has no reusePort (run the bench with Node 22.12+/24)`);

/** Starts one target; resolves {t, primaryPid, countDir}. */
async function start(name, round) {
  const countDir = path.join(scratch, `${name}-${round}`);
  fs.mkdirSync(countDir);
  const env = { COUNT_DIR: countDir };
  const preload = [];
  if (opts.profile) {
    const dir = path.resolve(opts.profile, `${name}-${round}`);
    fs.mkdirSync(dir, { recursive: true });
    preload.push(path.join(ROOT, 'bench/lib/cpu-profile-preload.cjs'));
    env.CPU_PROFILE_DIR = dir;
  }
  if (opts.handoff) {
    preload.push(path.join(ROOT, 'bench/lib/handoff-timer.cjs'));
    env.HANDOFF_DIR = countDir; // <pid>.json beside the counters, which are named <pid>
  }
  if (preload.length) env.NODE_OPTIONS = preload.map((f) => `--require ${f}`).join(' ');
  const common = { instances: opts.workers, script: APP, name, env };
  let t;
  let primaryPid;
  switch (name) {
    case 'raw-rr':
      t = await startRaw(common);
      primaryPid = t.pid;
      break;
    case 'raw-rr-setsid':
      t = await startRaw({ ...common, env: { ...env, WORKER_SESSION: which('setsid') } });
      primaryPid = t.pid;
      break;
    case 'raw-rr-agent':
      t = await startRaw({ ...common, env: { ...env, WORKER_NODE_OPTIONS: `${env.NODE_OPTIONS ?? ''} --require ${path.join(ROOT, 'lib/worker/agent.cjs')}` } });
      primaryPid = t.pid;
      break;
    case 'raw-none':
      t = await startRaw({ ...common, env: { ...env, NODE_CLUSTER_SCHED_POLICY: 'none' } });
      primaryPid = t.pid;
      break;
    case 'reuseport':
      t = await startRaw({ ...common, primary: path.join(ROOT, 'bench/reuse-port-primary.js') });
      primaryPid = t.pid;
      break;
    case 'superd':
    case 'superd-rr':
    case 'superd-os':
    case 'superd-reuseport':
    case 'superd-nosetsid':
    case 'superd-setsid':
    case 'superd-nometrics':
    case 'superd-reuseport-nometrics':
      t = await startSuperd({
        app: name.endsWith('-nometrics') ? ['metrics_interval: 0'] : [],
        ...common,
        top: {
          'superd-rr': ['scheduling: round-robin'], 'superd-nometrics': ['scheduling: round-robin'], 'superd-os': ['scheduling: os'],
          'superd-reuseport': ['scheduling: reuseport'], 'superd-reuseport-nometrics': ['scheduling: reuseport'],
        }[name] ?? [],
        // No perl, setsid nor setpriv on the daemon's PATH: its workers stay in its group.
        // Only setsid and setpriv: each worker in a session of its own.
        env: name === 'superd-nosetsid' ? { ...env, PATH: '/nonexistent' } : name === 'superd-setsid' ? { ...env, PATH: setsidOnly() } : env,
      });
      primaryPid = Number(fs.readFileSync(path.join(t.env.SUPER_HOME, 'daemon.pid'), 'utf8').trim().split(/\s/)[0]);
      break;
    case 'pm2':
      t = await startPm2(common);
      primaryPid = Number(fs.readFileSync(path.join(t.env.PM2_HOME, 'pm2.pid'), 'utf8').trim());
      break;
    default:
      throw new Error(`unknown target ${name}`);
  }
  return { t, primaryPid, countDir };
}

/** A directory with setsid and setpriv and no perl, for the daemon's PATH (superd-setsid). */
function setsidOnly() {
  const dir = path.join(scratch, 'setsid-only');
  if (!fs.existsSync(dir)) {
    fs.mkdirSync(dir);
    for (const tool of ['setsid', 'setpriv']) fs.symlinkSync(which(tool) ?? `/usr/bin/${tool}`, path.join(dir, tool));
  }
  return dir;
}

/** utime+stime of pid so far, in ticks (1/100 s). */
function ticks(pid) {
  const f = fs.readFileSync(`/proc/${pid}/stat`, 'latin1').split(') ')[1].split(' ');
  return Number(f[11]) + Number(f[12]);
}

/** pid -> requests counted so far, from the workers' files. */
function counts(dir) {
  const out = new Map();
  for (const f of fs.readdirSync(dir)) if (/^\d+$/.test(f)) out.set(f, Number(fs.readFileSync(path.join(dir, f), 'utf8')) || 0);
  return out;
}

/** The primary's handoff round trips (--handoff), read once it has exited: {count, p50, p90, p99} µs, or null. */
function handoffTimes(countDir, primaryPid) {
  try {
    return JSON.parse(fs.readFileSync(path.join(countDir, `${primaryPid}.json`), 'utf8'));
  } catch {
    return null;
  }
}

/** CPU ticks of this process's reaped children (cutime+cstime): wrk's, around a window. */
function childTicks() {
  const f = fs.readFileSync('/proc/self/stat', 'latin1').split(') ')[1].split(' ');
  return Number(f[13]) + Number(f[14]);
}

/** Runs wrk; resolves {rps, requests, errors, non2xx, wrk_cores}. */
function wrk(port, seconds) {
  const args = ['-t1', `-c${opts.connections}`, `-d${seconds}s`, ...HEADER, `http://127.0.0.1:${port}/`];
  const ticks0 = childTicks();
  const t0 = performance.now();
  return new Promise((resolve, reject) => {
    const child = spawn('wrk', args, { stdio: ['ignore', 'pipe', 'inherit'] });
    let out = '';
    child.stdout.on('data', (d) => { out += d; });
    child.on('error', reject);
    child.on('close', (code) => {
      if (code !== 0) return reject(new Error(`wrk exited ${code}:\n${out}`));
      const num = (re) => Number(re.exec(out)?.[1] ?? 0);
      const sock = /Socket errors: connect (\d+), read (\d+), write (\d+), timeout (\d+)/.exec(out);
      resolve({
        rps: num(/Requests\/sec:\s+([\d.]+)/),
        requests: num(/(\d+) requests in/),
        errors: sock ? sock.slice(1).map(Number).reduce((a, b) => a + b, 0) : 0,
        non2xx: num(/Non-2xx or 3xx responses: (\d+)/),
        wrk_cores: ((childTicks() - ticks0) * 10) / (performance.now() - t0),
      });
    });
  });
}

async function window(name, round) {
  const { t, primaryPid, countDir } = await start(name, round);
  const w = await measure(t, primaryPid, countDir, name, round);
  if (opts.handoff) w.handoff = handoffTimes(countDir, primaryPid);
  return w;
}

async function measure(t, primaryPid, countDir, name, round) {
  try {
    await wrk(t.port, WARMUP_S);
    await sleep(300); // the counters' files catch up
    const before = counts(countDir);
    const cpu0 = cpuSnapshot(t);
    const primary0 = ticks(primaryPid);
    const r = await wrk(t.port, opts.duration);
    const primary1 = ticks(primaryPid);
    const cpu = cpuDelta(cpu0, cpuSnapshot(t));
    await sleep(300);
    const after = counts(countDir);
    const served = [...after].map(([pid, n]) => n - (before.get(pid) ?? 0)).filter((n) => n > 0);
    const total = served.reduce((a, b) => a + b, 0);
    const fair = total / opts.workers;
    // The worst worker's distance from an even share, in % of that share.
    const skew = served.length < opts.workers ? 100 : Math.max(...served.map((n) => Math.abs(n - fair) / fair)) * 100;
    const perK = (x) => (r.requests ? (x / r.requests) * 1000 : NaN);
    const primaryMs = (primary1 - primary0) * 10;
    const allMs = cpu.target * opts.duration * 1000; // every process of the target
    // The workers are the processes that counted requests (hello-counted.js names its file by pid).
    const perf = opts.perf ? await underPerf(t.port, primaryPid, [...after.keys()].map(Number), `${name}-${round}`) : undefined;
    return {
      perf,
      ...r,
      shares: served.map((n) => n / total),
      skew_pct: skew,
      primary_ms_per_1k: perK(primaryMs),
      workers_ms_per_1k: perK(Math.max(0, allMs - primaryMs)),
      primary_cores: primaryMs / 1000 / opts.duration,
      other_cores: cpu.other + cpu.steal,
    };
  } finally {
    await t.stop();
    if (opts.profile) summarizeProfiles(name, round, primaryPid, countDir);
  }
}

/** One more window under perf (--perf): µs of CPU per connection by role and object. */
async function underPerf(port, primaryPid, workerPids, label) {
  // perf samples `duration` seconds inside a load window 1 s longer: the load is steady on
  // both sides of the sampling, whose connections are then wrk's rate over that time.
  const load = wrk(port, opts.duration + 1);
  await sleep(500);
  const file = path.join(scratch, `perf-${label}.data`);
  await perfRecord(file, [primaryPid, ...workerPids], opts.duration);
  const r = await load;
  const split = perfSplit(file, primaryPid, r.rps * opts.duration);
  const show = (o) => `${fmt(o.total, 1)} (kernel ${fmt(o.kernel, 1)}, node ${fmt(o.node, 1)}, JIT ${fmt(o.JIT, 1)}, libc ${fmt(o.libc, 1)}, other ${fmt(o.other, 1)})`;
  log(`    ${label} under perf: ${fmt(r.rps)} req/s; µs of CPU per connection: primary ${show(split.primary)}, workers ${show(split.workers)}`);
  return split;
}

/**
 * Prints the top self time of the primary's profile and of one worker's (--profile), in µs
 * per connection: the primary's over every connection of the target's life (warm-up
 * included), a worker's over the connections it served (its counter).
 */
function summarizeProfiles(name, round, primaryPid, countDir) {
  const dir = path.resolve(opts.profile, `${name}-${round}`);
  const served = counts(countDir);
  const total = [...served.values()].reduce((a, b) => a + b, 0);
  const show = (who, pid, conns) => {
    const file = path.join(dir, `${pid}.cpuprofile`);
    if (!fs.existsSync(file)) return log(`    ${who} ${pid}: no profile (it did not exit normally)`);
    const top = topSelfTime(JSON.parse(fs.readFileSync(file, 'utf8')), { limit: 1000 }).filter((f) => f.functionName !== '(idle)');
    const busy = top.reduce((a, f) => a + f.selfMs, 0);
    const us = (ms) => fmt((ms * 1000) / conns, 2).padStart(6);
    log(`    ${who} ${pid}: ${us(busy)} µs busy per connection (${conns} connections); top self time, µs per connection:\n${top.slice(0, 14).map((f) => `      ${us(f.selfMs)}  ${f.functionName}  ${f.url.replace(/^.*\/(lib|node_modules)\//, '$1/')}:${f.lineNumber}`).join('\n')}`);
  };
  show(`${name} primary`, primaryPid, total);
  const [pid, n] = [...served].sort((a, b) => b[1] - a[1])[0] ?? [];
  if (pid) show(`${name} worker`, pid, n);
}

const results = Object.fromEntries(targets.map((n) => [n, []]));
const loadAvg = () => os.loadavg().map((l) => fmt(l, 2)).join(' ');
const migrate = (() => {
  try {
    return fs.readFileSync('/proc/sys/net/ipv4/tcp_migrate_req', 'utf8').trim();
  } catch {
    return 'absent';
  }
})();
const loadAtStart = loadAvg();
log(`${opts.rounds} rounds x ${targets.length} targets x (${WARMUP_S} s warm-up + ${opts.duration} s), wrk -c${opts.connections} ${LOAD}, ${opts.workers} workers, node ${process.version}, tcp_migrate_req=${migrate}, load average ${loadAtStart}`);
for (let round = 1; round <= opts.rounds; round++) {
  const order = targets.map((_, i) => targets[(i + round - 1) % targets.length]);
  const base = {};
  for (const name of order) {
    const w = await window(name, round);
    results[name].push(w);
    const hand = w.handoff?.count ? `, handoff p50 ${w.handoff.p50} µs p99 ${w.handoff.p99} µs (${w.handoff.count})` : '';
    base[name] = w.rps;
    log(`  round ${round} ${name}: ${fmt(w.rps)} req/s, errors ${w.errors}, non-2xx ${w.non2xx}, shares ${w.shares.map((s) => fmt(s * 100, 1)).join('/')} %, `
      + `primary ${fmt(w.primary_ms_per_1k, 1)} ms CPU per 1k conns (${fmt(w.primary_cores * 100)} % of a core), workers ${fmt(w.workers_ms_per_1k, 1)} ms per 1k; wrk ${fmt(w.wrk_cores, 2)} cores; other load ${fmt(w.other_cores, 2)} cores${hand}`);
  }
  for (const name of targets) results[name].at(-1).vs_raw = ratio(base[name], base['raw-rr']);
}

const m = (name, pick) => median(results[name].map(pick));
const handoffCell = (name) => {
  const hs = results[name].map((w) => w.handoff).filter((h) => h?.count);
  return hs.length ? `${fmt(median(hs.map((h) => h.p50)))} / ${fmt(median(hs.map((h) => h.p99)))} µs` : '–';
};
const perfCell = (name, role) => {
  const kernel = m(name, (w) => w.perf[role].kernel);
  return `${fmt(kernel, 1)} / ${fmt(m(name, (w) => w.perf[role].total - w.perf[role].kernel), 1)}`;
};
const md = table(
  ['target', 'req/s', 'vs raw-rr (per-round ratios)', 'worst worker vs even share', 'primary CPU per 1k conns', 'primary CPU', 'workers CPU per 1k conns', 'wrk CPU (cores)', 'errors / non-2xx', 'other load (cores)', ...(opts.handoff ? ['handoff p50 / p99'] : []), ...(opts.perf ? ['under perf, µs per conn: primary kernel / user', 'workers kernel / user'] : [])],
  targets.map((name) => [
    name,
    fmt(m(name, (w) => w.rps)),
    results['raw-rr'] ? `${fmt(m(name, (w) => w.vs_raw), 2)} (${results[name].map((w) => fmt(w.vs_raw, 2)).join(' ')})` : 'n/a',
    `±${fmt(m(name, (w) => w.skew_pct), 1)} %`,
    `${fmt(m(name, (w) => w.primary_ms_per_1k), 1)} ms`,
    `${fmt(m(name, (w) => w.primary_cores * 100))} %`,
    `${fmt(m(name, (w) => w.workers_ms_per_1k), 1)} ms`,
    fmt(m(name, (w) => w.wrk_cores), 2),
    `${results[name].reduce((a, w) => a + w.errors, 0)} / ${results[name].reduce((a, w) => a + w.non2xx, 0)}`,
    results[name].map((w) => fmt(w.other_cores, 2)).join(' / '),
    ...(opts.handoff ? [handoffCell(name)] : []),
    ...(opts.perf ? ['primary', 'workers'].map((role) => perfCell(name, role)) : []),
  ]),
);
let wrkVersion = '?';
try {
  wrkVersion = /wrk ([\d.]+)/.exec(execFileSync('wrk', ['-v'], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] }))?.[1] ?? '?';
} catch (err) {
  wrkVersion = /wrk (\S+)/.exec(String(err.stdout))?.[1] ?? '?'; // wrk -v exits 1
}
const command = ['node', 'bench/connections.js', ...process.argv.slice(2)].join(' ');
process.stdout.write([
  `## ${opts.keepalive ? 'Keep-alive connections' : 'A new connection per request'} (${opts.workers} workers, wrk ${wrkVersion} -t1 -c${opts.connections} ${LOAD}, ${opts.duration} s x ${opts.rounds} rounds after ${WARMUP_S} s warm-up, medians)`,
  '',
  `node ${process.version}, ${os.availableParallelism()} CPUs, net.ipv4.tcp_migrate_req=${migrate}, load average ${loadAtStart} at the start and ${loadAvg()} at the end; command: \`${command}\``,
  '',
  md,
  '',
].join('\n'));
fs.mkdirSync(path.dirname(path.resolve(ROOT, opts.out)), { recursive: true });
fs.writeFileSync(path.resolve(ROOT, opts.out), `${JSON.stringify({ date: new Date().toISOString(), command, node: process.version, tcp_migrate_req: migrate, loadavg: [loadAtStart, loadAvg()], options: opts, results }, null, 2)}\n`);
log(`wrote ${opts.out}`);
