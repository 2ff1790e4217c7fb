#!/usr/bin/env node
// Cost at rest and at scale (issue 20): superd vs a raw node:cluster primary vs PM2, in one
// run, for each number of idle hello workers:
//   start (daemon running / cold) -> all listening, daemon and worker RSS (/proc/<pid>/status),
//   daemon and worker CPU over an idle window (/proc/<pid>/stat) with the machine's other
//   load in the same window (a window with other load above --max-other cores is repeated,
//   at most --tries times, and the quietest kept), SIGKILLed worker -> replacement listening,
//   `super ls` / `pm2 ls` wall time vs `node -e 0`.
//   --sizes 0,4,50,100   worker counts (0: the daemon alone; the raw primary has no row)
//   --window S           idle window, seconds (default 30; 2 for a smoke run)
//   --settle S           wait after start before the window (default 12: an agent stops its
//                        loop histogram after 5-10 s without work; the starts' probes are work)
//   --tries N            windows tried per figure when the machine is busy (default 3)
//   --max-other C        other load (cores) above which a window is repeated (default 0.1)
//   --kills N            SIGKILL -> listening measures at 4 workers (default 5)
//   --runs N             timed runs of each `ls` (default 7)
//   --only raw,superd,pm2
// Prints markdown tables (medians) and writes bench/results/idle-latest.json.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import http from 'node:http';
import { spawn } from 'node:child_process';
import { median, fmt, table } from './stats.js';
import { ROOT, SUPER_BIN, PM2_BIN, HELLO, startRaw, startSuperd, startPm2, stopAll, killEverythingSync, leaks, run, markedEnv, reapMarked, waitForWorkers, sleep } from './targets.js';
import { benchArgs } from './lib/args.js';

const TARGETS = ['raw', 'superd', 'pm2'];
const opts = benchArgs(process.argv.slice(2), {
  defaults: { sizes: '0,4,50,100', window: 30, settle: 12, tries: 3, 'max-other': 0.1, kills: 5, runs: 7, only: TARGETS.join(',') },
  fractional: ['window', 'settle', 'max-other'],
  lists: ['only'],
  choices: { only: TARGETS },
  usage: 'node bench/idle.js [--sizes 0,4,50,100] [--window S] [--settle S] [--tries N] [--max-other C] [--kills N] [--runs N] [--only raw,superd,pm2]',
});
const sizes = opts.sizes.split(',').map(Number);
if (!sizes.every((n) => Number.isInteger(n) && n >= 0 && n <= 200)) {
  process.stderr.write('bench: --sizes takes whole numbers from 0 to 200\n');
  process.exit(2);
}

const log = (s) => process.stderr.write(`${s}\n`);
const HZ = 100; // USER_HZ of /proc/stat and /proc/<pid>/stat
const MB = 1024 * 1024;

process.on('SIGINT', async () => {
  await stopAll();
  process.exit(130);
});
process.on('exit', killEverythingSync);

// --- /proc

const readProc = (file) => {
  try {
    return fs.readFileSync(file, 'latin1');
  } catch {
    return null; // gone
  }
};
/** utime + stime of one process, in ticks (null when it is gone). */
function ticksOf(pid) {
  const f = readProc(`/proc/${pid}/stat`)?.split(') ')[1]?.split(' ');
  return f ? Number(f[11]) + Number(f[12]) : null;
}
/** VmRSS in bytes. */
const rssOf = (pid) => Number(/^VmRSS:\s+(\d+)/m.exec(readProc(`/proc/${pid}/status`) ?? '')?.[1] ?? NaN) * 1024;
/** Live children of `pid` (the workers of a primary / daemon). */
function childrenOf(pid) {
  const out = [];
  for (const ent of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(ent)) continue;
    const f = readProc(`/proc/${ent}/stat`)?.split(') ')[1]?.split(' ');
    if (f && Number(f[1]) === pid && f[0] !== 'Z') out.push(Number(ent));
  }
  return out;
}
/**
 * RSS of the processes a superd daemon starts beside its workers (the orphan reaper: a perl
 * whose argument is this daemon's group record, `<home>/...<daemon pid>`), summed; NaN for others.
 */
function helpersRss(daemonPid, home) {
  if (!home) return NaN;
  let sum = 0;
  for (const ent of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(ent)) continue;
    const argv = readProc(`/proc/${ent}/cmdline`)?.split('\0') ?? [];
    if (argv.some((a) => a.includes('orphan-reaper')) && argv.some((a) => a.startsWith(home) && a.endsWith(String(daemonPid)))) sum += rssOf(Number(ent));
  }
  return sum;
}
const machineBusy = () => {
  const [user, nice, system] = fs.readFileSync('/proc/stat', 'latin1').split('\n')[0].trim().split(/\s+/).slice(1).map(Number);
  return user + nice + system;
};

/**
 * CPU (% of one core) of the daemon and of each worker over one idle window, with the other
 * load of the machine (cores) in that same window; repeated while that load is above
 * --max-other, at most --tries times: the quietest window is kept.
 */
async function idleWindow(daemonPid) {
  let best = null;
  for (let i = 0; i < opts.tries; i++) {
    const workers = daemonPid ? childrenOf(daemonPid) : [];
    const pids = [daemonPid, ...workers].filter(Boolean);
    const t0 = process.hrtime.bigint();
    const before = new Map(pids.map((p) => [p, ticksOf(p)]));
    const busy0 = machineBusy();
    const self0 = process.cpuUsage();
    await sleep(opts.window * 1000);
    const secs = Number(process.hrtime.bigint() - t0) / 1e9;
    const pct = (p) => {
      const a = before.get(p);
      const b = ticksOf(p);
      return a === null || b === null ? NaN : ((b - a) / HZ / secs) * 100;
    };
    const self = process.cpuUsage(self0);
    const daemon = daemonPid ? pct(daemonPid) : NaN;
    const perWorker = workers.map(pct);
    const ours = [daemon, ...perWorker].filter(Number.isFinite).reduce((a, b) => a + b, 0) / 100;
    const other = Math.max(0, (machineBusy() - busy0) / HZ / secs - ours - (self.user + self.system) / 1e6 / secs);
    const w = { daemon, workers: perWorker, other, secs };
    if (!best || other < best.other) best = w;
    if (other <= opts['max-other']) break;
    log(`    other load ${other.toFixed(2)} cores > ${opts['max-other']}: window repeated`);
  }
  return best;
}

// --- HTTP probes

function whoAnswers(port) {
  return new Promise((resolve) => {
    const req = http.get({ host: '127.0.0.1', port, path: '/', agent: false, timeout: 1000 }, (res) => {
      let b = '';
      res.on('data', (d) => { b += d; }).on('end', () => resolve(Number(/pid (\d+)/.exec(b)?.[1] ?? 0)));
    });
    req.on('error', () => resolve(0)).on('timeout', () => req.destroy());
  });
}

/**
 * SIGKILL one worker; ms until a worker that was not there before answers (bounded). A
 * probe can hang until its timeout (a connection handed to the worker just killed), so
 * probes start every PROBE_EVERY_MS, each on its own connection, at most PROBES_IN_FLIGHT
 * at once: one stuck probe does not delay the others (it used to add up to 1 s).
 */
const PROBE_EVERY_MS = 5;
const PROBES_IN_FLIGHT = 50;
function killToListening(daemonPid, port) {
  const before = new Set(childrenOf(daemonPid));
  const victim = [...before][0];
  const t0 = performance.now();
  process.kill(victim, 'SIGKILL');
  return new Promise((resolve, reject) => {
    let inFlight = 0;
    let done = false;
    const timer = setInterval(() => {
      if (performance.now() - t0 > 15000) {
        done = true;
        clearInterval(timer);
        reject(new Error(`no replacement for pid ${victim} listening within 15 s`));
      }
      if (done || inFlight >= PROBES_IN_FLIGHT) return;
      inFlight++;
      whoAnswers(port).then((pid) => {
        inFlight--;
        if (done || !pid || before.has(pid)) return;
        done = true;
        clearInterval(timer);
        resolve(performance.now() - t0);
      });
    }, PROBE_EVERY_MS);
  });
}

/** Median wall time (ms) of a command run to its end, --runs times. */
async function wall(cmd, args, env) {
  const times = [];
  for (let i = 0; i < opts.runs; i++) {
    const t0 = performance.now();
    await run(cmd, args, { env });
    times.push(performance.now() - t0);
  }
  return median(times);
}

// --- the three targets: start n workers (timed), the daemon's pid, a warm restart, stop

/** The daemon alone (0 apps): `super daemon` / `pm2 ping`, marked so the sweep finds it. */
async function bareDaemon(kind) {
  const home = fs.mkdtempSync(path.join(os.tmpdir(), `${kind}-idle-`));
  const { env, mark } = markedEnv(kind, kind === 'superd' ? { SUPER_HOME: home } : { PM2_HOME: home });
  if (kind === 'superd') {
    spawn(process.execPath, [SUPER_BIN, 'daemon'], { env, detached: true, stdio: 'ignore' }).unref();
    const deadline = Date.now() + 15000;
    while (!(await run(process.execPath, [SUPER_BIN, 'ping'], { env }).then(() => true, () => false))) {
      if (Date.now() > deadline) throw new Error('superd daemon: no answer within 15 s');
      await sleep(100);
    }
  } else {
    await run(PM2_BIN, ['ping'], { env });
  }
  const pidFile = kind === 'superd' ? 'daemon.pid' : 'pm2.pid';
  return {
    env,
    pid: Number(fs.readFileSync(path.join(home, pidFile), 'utf8')),
    async stop() {
      await run(kind === 'superd' ? process.execPath : PM2_BIN, kind === 'superd' ? [SUPER_BIN, 'kill'] : ['kill'], { env }).catch(() => {});
      await reapMarked(kind, mark);
      fs.rmSync(home, { recursive: true, force: true });
    },
  };
}

const START = {
  raw: (n) => startRaw({ instances: n }),
  superd: (n) => startSuperd({ instances: n }),
  pm2: (n) => startPm2({ instances: n }),
};
const DAEMON_PID = {
  raw: (t) => t.pid,
  superd: (t) => Number(fs.readFileSync(path.join(t.env.SUPER_HOME, 'daemon.pid'), 'utf8')),
  pm2: (t) => Number(fs.readFileSync(path.join(t.env.PM2_HOME, 'pm2.pid'), 'utf8')),
};
/** Deletes the app, then starts it again with the daemon running: ms until all listen. */
const WARM = {
  superd: async (t, n) => {
    await run(process.execPath, [SUPER_BIN, 'delete', 'bench-hello'], { env: t.env });
    const t0 = performance.now();
    await run(process.execPath, [SUPER_BIN, 'start', path.join(t.env.SUPER_HOME, 'bench.yml')], { env: t.env, timeout: 120000 });
    await waitForWorkers(t.port, n);
    return performance.now() - t0;
  },
  pm2: async (t, n) => {
    await run(PM2_BIN, ['delete', 'bench-hello'], { env: t.env });
    const t0 = performance.now();
    await run(PM2_BIN, ['start', HELLO, '-i', String(n), '--name', 'bench-hello'], { env: t.env, timeout: 120000 });
    await waitForWorkers(t.port, n);
    return performance.now() - t0;
  },
};
const LS = { superd: [process.execPath, [SUPER_BIN, 'ls']], pm2: [PM2_BIN, ['ls']] };

async function measure(kind, n) {
  const row = { kind, n };
  let t;
  if (n === 0) {
    t = await bareDaemon(kind);
    row.daemonPid = t.pid;
  } else {
    const t0 = performance.now();
    t = await START[kind](n);
    row.cold_ms = performance.now() - t0; // no daemon yet -> all n listening
    row.daemonPid = DAEMON_PID[kind](t);
  }
  try {
    await sleep(opts.settle * 1000);
    const w = await idleWindow(row.daemonPid);
    Object.assign(row, {
      daemon_cpu: w.daemon,
      workers_cpu_sum: w.workers.reduce((a, b) => a + b, 0),
      worker_cpu_median: median(w.workers),
      other_cores: w.other,
      window_s: w.secs,
      daemon_rss: rssOf(row.daemonPid),
      helpers_rss: helpersRss(row.daemonPid, t.env?.SUPER_HOME), // a bare primary has no env: no helpers
      worker_rss_median: median(childrenOf(row.daemonPid).map(rssOf)),
    });
    if (n === 4) {
      row.kill_ms = [];
      for (let i = 0; i < opts.kills; i++) {
        row.kill_ms.push(await killToListening(row.daemonPid, t.port));
        await waitForWorkers(t.port, n);
      }
    }
    if ((n === 4 || n === 100) && LS[kind]) row.ls_ms = await wall(...LS[kind], t.env);
    if (n > 0 && WARM[kind]) row.warm_ms = await WARM[kind](t, n);
  } finally {
    await t.stop();
  }
  return row;
}

// --- run

const rows = [];
const nodeE0 = await wall(process.execPath, ['-e', '0']);
for (const n of sizes) {
  for (const kind of TARGETS) {
    if (!opts.only.includes(kind) || (n === 0 && kind === 'raw')) continue;
    log(`${kind}, ${n} workers...`);
    rows.push(await measure(kind, n));
  }
}

const cell = (kind, n, f) => {
  const r = rows.find((x) => x.kind === kind && x.n === n);
  return r ? f(r) : '-';
};
const pct = (x) => (Number.isFinite(x) ? `${fmt(x, 2)} %` : '-');
const mb = (x) => (Number.isFinite(x) ? `${fmt(x / MB, 1)} MB` : '-');
const ms = (x) => (Number.isFinite(x) ? `${fmt(x)} ms` : '-');
const FIGURES = [
  ['daemon RSS', (r) => mb(r.daemon_rss)],
  ['the daemon\'s helper processes\' RSS (superd: the orphan reaper)', (r) => mb(r.helpers_rss)],
  ['daemon CPU, idle', (r) => pct(r.daemon_cpu)],
  ['all workers\' CPU, idle', (r) => (r.n ? pct(r.workers_cpu_sum) : '-')],
  ['each worker\'s CPU (median)', (r) => (r.n ? pct(r.worker_cpu_median) : '-')],
  ['each worker\'s RSS (median)', (r) => (r.n ? mb(r.worker_rss_median) : '-')],
  ['other load in the window', (r) => `${fmt(r.other_cores, 2)} cores`],
  ['start, no daemon yet (cold) -> all listening', (r) => ms(r.cold_ms)],
  ['start, daemon running -> all listening', (r) => ms(r.warm_ms)],
  ['SIGKILLed worker -> replacement listening (median)', (r) => (r.kill_ms ? ms(median(r.kill_ms)) : '-')],
  ['`ls` wall time (median)', (r) => ms(r.ls_ms)],
];
const out = [`Idle window ${opts.window} s (quietest of at most ${opts.tries}), medians; \`node -e 0\`: ${fmt(nodeE0)} ms.`, ''];
for (const n of sizes) {
  out.push(`### ${n} workers`, '');
  out.push(table(['figure', 'raw cluster', 'superd', 'PM2'], FIGURES.map(([name, f]) => [name, ...TARGETS.map((k) => cell(k, n, f))])), '');
}
if (leaks.length) out.push(`LEAKS (killed): ${JSON.stringify(leaks)}`);
process.stdout.write(`${out.join('\n')}\n`);
fs.mkdirSync(path.join(ROOT, 'bench/results'), { recursive: true });
fs.writeFileSync(path.join(ROOT, 'bench/results/idle-latest.json'), `${JSON.stringify({ opts, node_e0_ms: nodeE0, rows }, null, 2)}\n`);
