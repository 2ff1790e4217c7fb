#!/usr/bin/env node
// CPU pinning and scheduling bench: `npm run bench:affinity` (run it under
// `flock /tmp/superd-bench.lock` on a shared machine).
//   --duration S   seconds of measured load per target and round (default 5, after 1 s warm-up)
//   --rounds N     rounds; each runs every target once, in the same order (default 3)
//   --requests N   requests per policy for the distribution table (default 1000)
//   --only throughput|distribution
//
// 1. Throughput of examples/fib (CPU-bound: BigInt fibonacci(10000) per request) under
//    autocannon -c 2 (keep-alive), for: one process; 2 workers unpinned; 2 workers
//    `cpu_affinity: spread`; 2 workers and their primary all on CPU 0. Each under superd,
//    and under a raw node:cluster primary and PM2 where the row means something there:
//    node:cluster and PM2 cannot pin a worker (Node has no affinity API; PM2 issue #3643),
//    so their "spread" cell is n/a, and "all on CPU 0" is the whole process tree started
//    under `taskset -c 0` (every process inherits the mask).
// 2. Request distribution per worker under superd with `scheduling: round-robin` vs `os`,
//    keep-alive off (one fresh connection per request), 2 in flight.
// Prints markdown tables (stdout) and writes bench/results/affinity.json.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import http from 'node:http';
import autocannon from 'autocannon';
import { median, ratio, fmt, table } from './stats.js';
import { ROOT, startRaw, startSuperd, startPm2, stopAll, killEverythingSync, leaks, cpuSnapshot, cpuDelta } from './targets.js';
import { readAllowedCpus, formatCpuList } from '../lib/config/cpu-set.js';
import { benchArgs } from './lib/args.js';

const FIB = path.join(ROOT, 'examples/fib/server.js');
const WARMUP_S = 1;
const CONNECTIONS = 2;

const log = (s) => process.stderr.write(`${s}\n`);

let interrupted = false;
for (const sig of ['SIGINT', 'SIGTERM', 'SIGHUP']) {
  process.on(sig, async () => {
    if (interrupted) process.exit(130);
    interrupted = true;
    log(`\n${sig}: stopping everything the bench started...`);
    const timer = setTimeout(() => process.exit(130), 15000);
    await stopAll();
    clearTimeout(timer);
    process.exit(130);
  });
}
process.on('exit', killEverythingSync);

const TASKSET_0 = ['taskset', '-c', '0'];

/** Rows x managers; null = not meaningful for that manager (the table says why). */
const ROWS = [
  {
    row: 'single process',
    superd: () => startSuperd({ instances: 1, script: FIB, name: 'superd single' }),
    raw: () => startRaw({ instances: 1, script: FIB, single: true, name: 'node (plain) single' }),
    pm2: () => startPm2({ instances: 1, script: FIB, name: 'pm2 single' }),
  },
  {
    row: '2 workers, unpinned',
    superd: () => startSuperd({ instances: 2, script: FIB, name: 'superd 2 unpinned' }),
    raw: () => startRaw({ instances: 2, script: FIB, name: 'raw 2 unpinned' }),
    pm2: () => startPm2({ instances: 2, script: FIB, name: 'pm2 2 unpinned' }),
  },
  {
    row: '2 workers, spread (one CPU each)',
    superd: () => startSuperd({ instances: 2, script: FIB, app: ['cpu_affinity: spread'], name: 'superd 2 spread' }),
    raw: null,
    pm2: null,
  },
  {
    row: '2 workers + primary/daemon, all on CPU 0',
    superd: () => startSuperd({ instances: 2, script: FIB, top: ['daemon:', '  cpu_affinity: 0'], app: ['cpu_affinity: [0]'], name: 'superd all on 0' }),
    raw: () => startRaw({ instances: 2, script: FIB, prefix: TASKSET_0, name: 'raw all on 0' }),
    pm2: () => startPm2({ instances: 2, script: FIB, prefix: TASKSET_0, name: 'pm2 all on 0' }),
  },
];
const MANAGERS = ['superd', 'raw', 'pm2'];

function load(port, duration) {
  return autocannon({ url: `http://127.0.0.1:${port}/10000`, connections: CONNECTIONS, pipelining: 1, duration });
}

async function throughput({ duration, rounds }) {
  const samples = new Map(); // "row|manager" -> [{rps, p99, errors, non2xx}]
  for (let r = 1; r <= rounds; r++) {
    for (const row of ROWS) {
      for (const m of MANAGERS) {
        if (!row[m]) continue;
        const t = await row[m]();
        try {
          await load(t.port, WARMUP_S);
          const before = cpuSnapshot(t);
          const res = await load(t.port, duration);
          const cpu = cpuDelta(before, cpuSnapshot(t));
          // other: CPU busy outside the target and this driver (the machine is shared), plus steal
          const s = { rps: res.requests.average, p99: res.latency.p99, errors: res.errors + res.timeouts, non2xx: res.non2xx, other: cpu.other + cpu.steal };
          const key = `${row.row}|${m}`;
          if (!samples.has(key)) samples.set(key, []);
          samples.get(key).push(s);
          log(`  round ${r}/${rounds} ${t.name}: ${fmt(s.rps, 1)} req/s, p99 ${s.p99} ms, errors ${s.errors}, non-2xx ${s.non2xx}, other load ${fmt(s.other, 2)} cores`);
        } finally {
          await t.stop();
        }
      }
    }
  }
  const cell = (row, m) => {
    const ss = samples.get(`${row.row}|${m}`);
    if (!ss) return null;
    return {
      rps: median(ss.map((s) => s.rps)),
      p99: median(ss.map((s) => s.p99)),
      errors: ss.reduce((a, s) => a + s.errors + s.non2xx, 0),
      rounds: ss.map((s) => s.rps),
      other: median(ss.map((s) => s.other)),
    };
  };
  /** @type {Record<string, any>[]} a row's name and each manager's cell */
  const results = ROWS.map((row) => ({ row: row.row, ...Object.fromEntries(MANAGERS.map((m) => [m, cell(row, m)])) }));
  const base = Object.fromEntries(MANAGERS.map((m) => [m, results[0][m]?.rps]));
  const superdUnpinned = results[1].superd?.rps;
  const why = { raw: 'n/a: node:cluster cannot pin a worker', pm2: 'n/a: PM2 cannot pin (#3643)' };
  const show = (c, m, row) => (c ? `${fmt(c.rps, 1)} / ${fmt(c.p99)} ms${c.errors ? ` (${c.errors} errors)` : ''}` : (row.row.includes('spread') ? why[m] : 'n/a'));
  const md = table(
    ['configuration', 'superd req/s / p99', 'vs superd single', 'vs superd unpinned', 'raw node req/s / p99', 'pm2 req/s / p99', 'superd req/s per round', 'other load, cores (median)'],
    results.map((x, i) => [
      x.row,
      show(x.superd, 'superd', ROWS[i]),
      fmt(ratio(x.superd?.rps, base.superd), 2),
      fmt(ratio(x.superd?.rps, superdUnpinned), 2),
      show(x.raw, 'raw', ROWS[i]),
      show(x.pm2, 'pm2', ROWS[i]),
      x.superd ? x.superd.rounds.map((v) => fmt(v)).join(' / ') : '',
      MANAGERS.map((m) => (x[m] ? fmt(x[m].other, 2) : '-')).join(' / '),
    ]),
  );
  const title = `## Throughput, examples/fib (BigInt fib(10000) per request), autocannon -c ${CONNECTIONS} keep-alive, ${duration} s x ${rounds} rounds after ${WARMUP_S} s warm-up, medians`;
  const notes = [
    '',
    '',
    'raw node: `node server.js` for one process, `bench/raw-cluster.js` (a 20-line node:cluster primary) for two workers, '
      + 'started under `taskset -c 0` for the CPU 0 row. pm2: `pm2 start server.js -i N` (cluster mode); for the CPU 0 row '
      + 'the pm2 CLI runs under `taskset -c 0`, so the daemon it starts and every worker inherit CPU 0 (PM2 itself has no '
      + 'affinity setting). superd: `instances: N`; spread = `cpu_affinity: spread`; CPU 0 = `daemon.cpu_affinity: 0` + '
      + '`cpu_affinity: [0]`. The load generator (autocannon, in the bench process) is not pinned. '
      + '"other load" is CPU used by neither the target nor the bench during the measured window (superd / raw / pm2): '
      + 'other tenants of a shared machine; rounds with high other load are noise.',
  ];
  return { title, md: md + notes.join('\n'), rows: results };
}

/** One GET on a fresh connection (keep-alive off); resolves the worker pid that answered. */
function getFresh(port) {
  return new Promise((resolve, reject) => {
    const req = http.get({ host: '127.0.0.1', port, path: '/10000', agent: false, headers: { connection: 'close' }, timeout: 10000 }, (res) => {
      let b = '';
      res.on('data', (d) => { b += d; }).on('end', () => resolve(/pid (\d+)/.exec(b)?.[1] ?? '?'));
    });
    req.on('timeout', () => req.destroy(new Error('timeout'))).on('error', reject);
  });
}

async function distribution({ requests, rounds }) {
  const rows = [];
  for (const policy of ['round-robin', 'os']) {
    const perRound = [];
    for (let r = 1; r <= rounds; r++) {
      const t = await startSuperd({ instances: 2, script: FIB, top: [`scheduling: ${policy}`], name: `superd ${policy}` });
      try {
        for (let i = 0; i < 20; i++) await getFresh(t.port); // warm-up, not counted
        const counts = new Map();
        let errors = 0;
        let left = requests;
        const t0 = process.hrtime.bigint();
        const client = async () => {
          while (left > 0) {
            left--;
            try {
              const pid = await getFresh(t.port);
              counts.set(pid, (counts.get(pid) ?? 0) + 1);
            } catch {
              errors++;
            }
          }
        };
        await Promise.all(Array.from({ length: CONNECTIONS }, client));
        const secs = Number(process.hrtime.bigint() - t0) / 1e9;
        const shares = [...counts.values()].sort((a, b) => b - a);
        while (shares.length < 2) shares.push(0);
        perRound.push({ shares, rps: requests / secs, errors });
        log(`  ${policy} round ${r}/${rounds}: per worker ${shares.join(' / ')}, ${fmt(requests / secs, 1)} req/s, errors ${errors}`);
      } finally {
        await t.stop();
      }
    }
    const busiest = perRound.map((x) => x.shares[0] / requests);
    rows.push({ policy, rounds: perRound, busiest_share: median(busiest), rps: median(perRound.map((x) => x.rps)) });
  }
  const title = `## Request distribution per worker (superd, 2 workers unpinned, examples/fib, keep-alive off: ${requests} requests on fresh connections, ${CONNECTIONS} in flight, ${rounds} rounds)`;
  const md = table(
    ['scheduling', 'requests per worker, each round (busiest first)', 'busiest worker\'s share (median)', 'req/s (median)', 'errors'],
    rows.map((x) => [x.policy, x.rounds.map((r) => r.shares.join(' / ')).join('; '), `${fmt(100 * x.busiest_share, 1)} %`, fmt(x.rps, 1), String(x.rounds.reduce((a, r) => a + r.errors, 0))]),
  );
  return { title, md, rows };
}

function version(pkg) {
  try {
    return JSON.parse(fs.readFileSync(path.join(ROOT, 'node_modules', pkg, 'package.json'), 'utf8')).version;
  } catch {
    return '?';
  }
}

const opts = benchArgs(process.argv.slice(2), {
  defaults: { duration: 5, rounds: 3, requests: 1000, only: null },
  fractional: ['duration'],
  choices: { only: ['throughput', 'distribution'] },
  usage: 'node bench/affinity.js [--duration 5] [--rounds 3] [--requests 1000] [--only throughput|distribution]',
});
const command = ['node', 'bench/affinity.js', ...process.argv.slice(2)].join(' ');
const cpus = os.cpus();
const env = `node ${process.version}, CPUs ${formatCpuList(readAllowedCpus())} (${cpus[0]?.model.trim() ?? '?'}), ${os.platform()} ${os.release()}, `
  + `autocannon ${version('autocannon')}, pm2 ${version('pm2')}; command: \`${command}\``;
const results = { date: new Date().toISOString(), command, node: process.version, cpus: readAllowedCpus(), options: opts };
const out = ['# superd affinity bench', '', env];
let failed = false;
try {
  if (readAllowedCpus().length < 2) throw new Error('this bench needs at least 2 CPUs');
  if (opts.only !== 'distribution') {
    log(`throughput: ${opts.rounds} rounds x ${ROWS.length} rows...`);
    const t = await throughput(opts);
    results.throughput = t.rows;
    out.push('', t.title, '', t.md);
  }
  if (opts.only !== 'throughput') {
    log(`distribution: ${opts.rounds} rounds x 2 policies x ${opts.requests} requests...`);
    const d = await distribution(opts);
    results.distribution = d.rows;
    out.push('', d.title, '', d.md);
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
  fs.writeFileSync(path.join(dir, 'affinity.json'), `${JSON.stringify(results, null, 2)}\n`);
  log('wrote bench/results/affinity.json');
}
process.exitCode = failed ? 1 : 0;
