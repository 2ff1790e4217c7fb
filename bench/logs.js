#!/usr/bin/env node
// `npm run bench:logs`: 4 workers each write 250,000 numbered lines as fast as they can.
// Reported per target: time until all 1,000,000 lines are on disk, lines lost, lines split
// (not exactly one whole line), daemon CPU seconds and peak RSS during the flood, and the
// daemon's event-loop delay p99 (superd exposes it through the `stats` op; PM2 does not).
//   floor         4 x `node bench/log-flood-app.js >> file` (no supervisor at all)
//   superd        cluster mode, 4 instances, one merged file per stream
//   pm2           cluster mode, -i 4, --merge-logs to one file (its own PM2_HOME)
//   superd+rot    superd with log_max_size: 2M (rotation every 2 MB during the flood)
// Flags: --rounds N (default 3), --lines N per worker (default 250000), --only a,b
// Tables on stdout (markdown), progress on stderr, raw numbers in bench/results/logs.json.
// Run it alone: flock /tmp/superd-bench.lock npm run bench:logs
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { connect } from '../lib/ipc/client.js';
import { median, fmt, table } from './stats.js';
import { benchArgs } from './lib/args.js';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const APP = path.join(ROOT, 'bench/log-flood-app.js');
const SUPER = path.join(ROOT, 'bin/super.js');
const PM2 = path.join(ROOT, 'node_modules/.bin/pm2');
const WORKERS = 4;
const PAD = 52;
const LINE_BYTES = 2 + 1 + 7 + 1 + PAD + 1; // "w3 0000123 xxx...\n"
const HZ = 100;

const opts = benchArgs(process.argv.slice(2), {
  defaults: { rounds: 3, lines: 250000, only: null },
  choices: { only: ['floor', 'superd', 'pm2', 'superd+rot'] },
  lists: ['only'],
  usage: 'node bench/logs.js [--rounds 3] [--lines 250000] [--only floor,superd,pm2,superd+rot]',
});
const log = (s) => process.stderr.write(`${s}\n`);
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
const started = new Set(); // pids to SIGKILL at exit, whatever happens
const dirs = new Set(); // temp dirs to remove at exit
process.on('exit', () => {
  for (const d of dirs) fs.rmSync(d, { recursive: true, force: true });
  for (const pid of started) {
    try {
      process.kill(pid, 'SIGKILL');
    } catch { /* gone */ }
  }
});
for (const sig of ['SIGINT', 'SIGTERM']) process.on(sig, () => process.exit(130));

function run(cmd, args, env) {
  return new Promise((resolve, reject) => {
    const c = spawn(cmd, args, { env, cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    c.stdout.on('data', (d) => (out += d));
    c.stderr.on('data', (d) => (out += d));
    c.on('close', (code) => (code === 0 ? resolve(out) : reject(new Error(`${path.basename(cmd)} ${args.join(' ')}: exit ${code}\n${out}`))));
  });
}

const cpuTicks = (pid) => {
  try {
    const f = fs.readFileSync(`/proc/${pid}/stat`, 'latin1').split(') ')[1].split(' ');
    return Number(f[11]) + Number(f[12]);
  } catch {
    return NaN;
  }
};
const rssOf = (pid) => {
  try {
    return Number(/VmRSS:\s+(\d+)/.exec(fs.readFileSync(`/proc/${pid}/status`, 'latin1'))[1]) * 1024;
  } catch {
    return NaN;
  }
};
/**
 * True once `pid` handles SIGUSR2 (SigCgt bit 11). Node installs no SIGUSR2 handler of its
 * own (unlike SIGUSR1, its inspector's), so the bit means the app's handler is there.
 */
const handlesUsr2 = (pid) => {
  try {
    return (BigInt(`0x${/SigCgt:\s+([0-9a-f]+)/.exec(fs.readFileSync(`/proc/${pid}/status`, 'latin1'))[1]}`) & 0x800n) !== 0n;
  } catch {
    return false;
  }
};
async function waitHandlers(pids) {
  const deadline = Date.now() + 30000;
  while (!pids.every(handlesUsr2)) {
    if (Date.now() > deadline) throw new Error('workers did not install their SIGUSR2 handler within 30 s');
    await sleep(20);
  }
}

/**
 * A bystander: a bare Node process measuring its own event-loop delay during the flood.
 * On 2 shared cores, 4 flooding workers starve every process of CPU; the bystander's p99
 * is that baseline, so the daemon's own figure can be read against it.
 */
const PROBE = `const h = require('perf_hooks').monitorEventLoopDelay({ resolution: 10 }); h.enable();
process.on('SIGTERM', () => { process.stdout.write(String(Math.max(0, h.percentile(99) / 1e6 - 10))); process.exit(0); });
setInterval(() => {}, 1000); process.stdout.write('ready\\n');`;
function startProbe() {
  const c = spawn(process.execPath, ['-e', PROBE], { stdio: ['ignore', 'pipe', 'inherit'] });
  started.add(c.pid);
  let out = '';
  c.stdout.on('data', (d) => (out += d));
  const ready = new Promise((resolve, reject) => {
    c.stdout.once('data', resolve);
    c.once('close', () => reject(new Error('the bystander probe exited early')));
  });
  const done = new Promise((resolve) => c.on('close', () => resolve(Number(out.split('\n')[1]))));
  return { ready, stop: () => { c.kill('SIGTERM'); started.delete(c.pid); return done; } };
}

const sizeOf = (files) => files().reduce((a, f) => {
  try {
    return a + fs.statSync(f).size;
  } catch {
    return a;
  }
}, 0);

/** Reads every output file and checks each line: {lost, split, dups}. */
function verify(files, perWorker) {
  const seen = Array.from({ length: WORKERS }, () => new Uint8Array(perWorker));
  let split = 0;
  let dups = 0;
  const re = /^w(\d) (\d{7}) x+$/;
  for (const f of files) {
    const text = fs.readFileSync(f, 'latin1');
    const lines = text.split('\n');
    if (lines[lines.length - 1] === '') lines.pop();
    else if (lines.length) split++; // a partial last line
    for (const l of lines) {
      const m = re.exec(l);
      if (!m || l.length !== LINE_BYTES - 1 || Number(m[1]) >= WORKERS || Number(m[2]) >= perWorker) {
        split++;
        continue;
      }
      const w = seen[Number(m[1])];
      if (w[Number(m[2])]) dups++;
      w[Number(m[2])] = 1;
    }
  }
  let lost = 0;
  for (const w of seen) for (const v of w) if (!v) lost++;
  return { lost, split, dups };
}

// --- targets: each start() resolves {workerPids, daemonPid, files(), stats?(), stop()}

async function startFloor(dir) {
  const file = path.join(dir, 'floor.log');
  const pids = [];
  for (let i = 0; i < WORKERS; i++) {
    // a shell does the `>>`, exactly as a user would: node app.js >> file
    const c = spawn('/bin/sh', ['-c', `exec "${process.execPath}" "${APP}" >> "${file}"`], { env: { ...process.env, NODE_APP_INSTANCE: String(i), LINES: String(opts.lines), PAD: String(PAD) }, stdio: 'ignore' });
    started.add(c.pid);
    pids.push(c.pid);
  }
  return {
    workerPids: pids,
    daemonPid: null,
    files: () => [file],
    async stop() {
      for (const p of pids) process.kill(p, 'SIGKILL');
    },
  };
}

async function startSuperd(dir, { rotate }) {
  const home = path.join(dir, 'home');
  const eco = path.join(dir, 'eco.yml');
  fs.writeFileSync(eco, [
    'apps:',
    '  - name: flood',
    `    script: ${JSON.stringify(APP)}`,
    '    instances: 4',
    '    ready_on: spawn',
    '    min_uptime: 300ms',
    ...(rotate ? ['    log_max_size: 2M', '    log_retain: 10000'] : []),
    `    env: { LINES: "${opts.lines}", PAD: "${PAD}" }`,
    '',
  ].join('\n'));
  const env = { ...process.env, SUPER_HOME: home };
  await run(process.execPath, [SUPER, 'start', eco], env);
  const ls = JSON.parse(await run(process.execPath, [SUPER, 'ls', '--json'], env));
  const workerPids = ls.apps[0].workers.map((w) => w.pid);
  const daemonPid = Number(fs.readFileSync(path.join(home, 'daemon.pid'), 'utf8'));
  started.add(daemonPid);
  workerPids.forEach((p) => started.add(p));
  const client = await connect(home);
  const logDir = path.join(home, 'logs');
  return {
    workerPids,
    daemonPid,
    current: rotate ? path.join(logDir, 'flood-out.log') : null,
    maxSize: 2 * 1024 * 1024,
    files: () => fs.readdirSync(logDir).filter((n) => n.startsWith('flood-out.log')).map((n) => path.join(logDir, n)),
    stats: (reset) => client.request('stats', { reset }),
    async stop() {
      client.close();
      await run(process.execPath, [SUPER, 'kill'], env).catch((e) => log(`super kill: ${e.message}`));
    },
  };
}

async function startPm2(dir) {
  const home = path.join(dir, 'pm2');
  const file = path.join(dir, 'pm2-out.log');
  const env = { ...process.env, PM2_HOME: home, LINES: String(opts.lines), PAD: String(PAD) };
  await run(PM2, ['start', APP, '-i', String(WORKERS), '--name', 'flood', '--merge-logs', '-o', file, '-e', path.join(dir, 'pm2-err.log')], env);
  let workerPids = [];
  for (let i = 0; i < 100 && workerPids.length < WORKERS; i++) {
    const list = JSON.parse(await run(PM2, ['jlist'], env));
    workerPids = list.filter((p) => p.pm2_env.status === 'online' && p.pid).map((p) => p.pid);
    if (workerPids.length < WORKERS) await sleep(100);
  }
  const daemonPid = Number(fs.readFileSync(path.join(home, 'pm2.pid'), 'utf8'));
  started.add(daemonPid);
  workerPids.forEach((p) => started.add(p));
  return {
    workerPids,
    daemonPid,
    files: () => [file],
    async stop() {
      await run(PM2, ['kill'], env).catch((e) => log(`pm2 kill: ${e.message}`));
    },
  };
}

const TARGETS = {
  floor: (dir) => startFloor(dir),
  superd: (dir) => startSuperd(dir, { rotate: false }),
  pm2: (dir) => startPm2(dir),
  'superd+rot': (dir) => startSuperd(dir, { rotate: true }),
};

async function once(name) {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), `logbench-${name.replace('+', '-')}-`));
  dirs.add(dir);
  const t = await TARGETS[name](dir);
  try {
    await waitHandlers(t.workerPids);
    const expected = WORKERS * opts.lines * LINE_BYTES;
    await t.stats?.(true);
    const cpu0 = t.daemonPid ? cpuTicks(t.daemonPid) : NaN;
    let peakRss = t.daemonPid ? rssOf(t.daemonPid) : NaN;
    const probe = startProbe();
    await probe.ready;
    const t0 = process.hrtime.bigint();
    for (const p of t.workerPids) process.kill(p, 'SIGUSR2');
    const deadline = Date.now() + 300000;
    let size = 0;
    while ((size = sizeOf(t.files)) < expected && Date.now() < deadline) {
      if (t.daemonPid) peakRss = Math.max(peakRss, rssOf(t.daemonPid));
      await sleep(5);
    }
    const secs = Number(process.hrtime.bigint() - t0) / 1e9;
    const cpu = t.daemonPid ? (cpuTicks(t.daemonPid) - cpu0) / HZ : NaN;
    const st = await t.stats?.(false);
    const probeP99 = await probe.stop();
    // Let the last rotation happen and finish before reading the files: the current file is
    // below the limit once no rotation is left to come (reading while the chain shifts
    // would count one file twice and miss another).
    if (t.current) for (let i = 0; i < 200 && sizeOf(() => [t.current]) >= t.maxSize; i++) await sleep(50);
    await sleep(300);
    const check = verify(t.files(), opts.lines);
    if (size > expected) log(`  ${name}: ${size - expected} more bytes than written`);
    const r = { name, secs: size >= expected ? secs : NaN, ...check, cpu, peakRss, eldP99: st?.event_loop_delay_ms.p99 ?? NaN, probeP99, files: t.files().length };
    log(`  ${name}: ${fmt(r.secs, 2)} s, lost ${r.lost}, split ${r.split}, dups ${r.dups}, daemon cpu ${fmt(cpu, 2)} s, rss ${fmt(peakRss / 2 ** 20, 1)} MB, eld p99 ${fmt(r.eldP99, 1)} ms (bystander ${fmt(probeP99, 1)} ms), files ${r.files}`);
    return r;
  } finally {
    await t.stop();
    for (const p of [t.daemonPid, ...t.workerPids]) started.delete(p);
    fs.rmSync(dir, { recursive: true, force: true });
    dirs.delete(dir);
  }
}

const names = Object.keys(TARGETS).filter((n) => !opts.only || opts.only.includes(n));
const results = Object.fromEntries(names.map((n) => [n, []]));
for (let round = 1; round <= opts.rounds; round++) {
  log(`round ${round}/${opts.rounds}`);
  for (const n of names) results[n].push(await once(n));
}

const med = (n, k) => median(results[n].map((r) => r[k]));
const sumOf = (n, k) => results[n].reduce((a, r) => a + r[k], 0);
const floor = results.floor ? med('floor', 'secs') : NaN;
const pm2Cpu = results.pm2 ? med('pm2', 'cpu') : NaN;
const rows = names.map((n) => [
  n,
  fmt(med(n, 'secs'), 2),
  Number.isFinite(floor) ? `${fmt(med(n, 'secs') / floor, 2)}x` : 'n/a',
  String(sumOf(n, 'lost')),
  String(sumOf(n, 'split') + sumOf(n, 'dups')),
  n === 'floor' ? 'n/a' : fmt(med(n, 'cpu'), 2),
  n === 'floor' ? 'n/a' : Number.isFinite(pm2Cpu) && n !== 'pm2' ? `${fmt(med(n, 'cpu') / pm2Cpu, 2)}x` : n === 'pm2' ? '1.00x' : 'n/a',
  n === 'floor' ? 'n/a' : fmt(med(n, 'peakRss') / 2 ** 20, 1),
  n.startsWith('superd') ? fmt(med(n, 'eldP99'), 1) : 'n/a',
  fmt(med(n, 'probeP99'), 1),
  fmt(med(n, 'files'), 0),
]);
process.stdout.write(`\n${WORKERS} workers x ${fmt(opts.lines)} lines (${LINE_BYTES} bytes each), median of ${opts.rounds} rounds; lost and split summed over all rounds\n\n`);
process.stdout.write(`${table(['target', 'time to disk s', 'vs floor', 'lost', 'split+dup', 'daemon CPU s', 'CPU vs pm2', 'daemon peak RSS MB', 'daemon ELD p99 ms', 'bystander ELD p99 ms', 'files'], rows)}\n`);
fs.mkdirSync(path.join(ROOT, 'bench/results'), { recursive: true });
fs.writeFileSync(path.join(ROOT, 'bench/results/logs.json'), `${JSON.stringify({ at: new Date().toISOString(), node: process.version, cpus: os.cpus().length, opts, results }, null, 2)}\n`);
process.exit(0);
