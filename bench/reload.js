// npm run bench:reload -- rolling reloads under load: superd vs a hand-written
// node:cluster primary vs PM2, same run, same app (examples/hello, 4 workers).
//
// For each client mode (keep-alive, Connection: close) and each target: a strict client
// (bench/lib/strict-client.js: every request without a 2xx answer is counted, by cause)
// keeps 50 connections busy for the whole run while the driver runs N reloads back to
// back. Reported per run, medians across runs: requests, failed (errors, timeouts),
// non-2xx, reload wall time, and the throughput dip (lowest 100 ms bucket and mean
// during reloads, against the median bucket before the first reload).
//
//   node bench/reload.js [--runs 3] [--reloads 10] [--connections 50] [--instances 4]
//                        [--only superd,raw,pm2] [--modes keep-alive,close]
import { execFile } from 'node:child_process';
import { startSuperd, startPm2, startRaw, stopAll, killEverythingSync, leaks, SUPER_BIN, PM2_BIN } from './targets.js';
import { startLoad } from './lib/strict-client.js';
import { median, fmt, table } from './stats.js';
import { benchArgs } from './lib/args.js';

const opts = benchArgs(process.argv.slice(2), {
  defaults: { runs: 3, reloads: 10, connections: 50, instances: 4, only: ['superd', 'raw', 'pm2'], modes: ['keep-alive', 'close'] },
  choices: { only: ['superd', 'raw', 'pm2'], modes: ['keep-alive', 'close'] },
  lists: ['only', 'modes'],
  usage: 'node bench/reload.js [--runs 3] [--reloads 10] [--connections 50] [--instances 4] [--only superd,raw,pm2] [--modes keep-alive,close]',
});

process.on('exit', killEverythingSync);
process.on('SIGINT', async () => {
  await stopAll();
  process.exit(130);
});

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
const cmd = (file, args, env) => new Promise((resolve, reject) => {
  execFile(file, args, { env, timeout: 120000 }, (err, stdout, stderr) => (err ? reject(new Error(`${args.join(' ')}: ${err.message}\n${stderr}`)) : resolve(stdout)));
});

const TARGETS = {
  superd: {
    label: 'superd',
    start: () => startSuperd({ instances: opts.instances }),
    reload: (t) => cmd(process.execPath, [SUPER_BIN, 'reload', 'bench-hello'], t.env),
  },
  raw: {
    label: 'raw node:cluster (fork, listening, disconnect)',
    start: () => startRaw({ instances: opts.instances, keepIpc: true }),
    reload: (t) => new Promise((resolve) => {
      t.child.once('message', resolve);
      process.kill(t.child.pid, 'SIGHUP');
    }),
  },
  pm2: {
    label: 'pm2 reload',
    start: () => startPm2({ instances: opts.instances }),
    reload: (t) => cmd(PM2_BIN, ['reload', 'bench-hello'], t.env),
  },
};

async function runOnce(kind, keepAlive) {
  const spec = TARGETS[kind];
  const target = await spec.start();
  try {
    const load = startLoad({ port: target.port, connections: opts.connections, keepAlive, maxMs: 15 * 60 * 1000, timeout: 10000 });
    const t0 = Date.now();
    await sleep(3000); // baseline (the first second is left out: fresh workers warm up)
    const windows = [];
    for (let i = 0; i < opts.reloads; i++) {
      const a = Date.now();
      await spec.reload(target);
      windows.push([a - t0, Date.now() - t0]);
    }
    await sleep(1500); // let old workers finish, and show the recovery
    const r = await load.stop();
    const bucket = 100;
    const base = median(r.buckets.slice(1000 / bucket, 3000 / bucket - 1));
    const during = [];
    for (const [a, b] of windows) for (let k = Math.floor(a / bucket); k < Math.ceil(b / bucket); k++) during.push(r.buckets[k] ?? 0);
    return {
      sent: r.sent,
      failed: r.failed,
      errors: r.errors,
      timeouts: r.errors.timeout ?? 0,
      non2xx: r.non2xx,
      reloadMs: median(windows.map(([a, b]) => b - a)),
      baseRps: (base * 1000) / bucket,
      minPct: (100 * Math.min(...during)) / base,
      meanPct: (100 * during.reduce((x, y) => x + y, 0)) / during.length / base,
    };
  } finally {
    await target.stop();
  }
}

const kinds = opts.only;
const modes = opts.modes;
const results = {}; // mode -> kind -> [run]
for (let run = 1; run <= opts.runs; run++) {
  for (const mode of modes) {
    for (const kind of kinds) {
      const r = await runOnce(kind, mode === 'keep-alive');
      ((results[mode] ??= {})[kind] ??= []).push(r);
      process.stderr.write(`run ${run} ${mode} ${kind}: ${r.sent} sent, ${r.failed} failed ${JSON.stringify(r.errors)}, ${r.non2xx} non-2xx, reload ${fmt(r.reloadMs)} ms\n`);
    }
  }
}

const rows = [];
for (const mode of modes) {
  for (const kind of kinds) {
    const rs = results[mode][kind];
    const causes = {};
    for (const r of rs) for (const [c, n] of Object.entries(r.errors)) causes[c] = (causes[c] ?? 0) + n;
    rows.push([
      mode,
      TARGETS[kind].label,
      rs.map((r) => fmt(r.sent)).join(' / '),
      rs.map((r) => r.failed - r.timeouts).join(' / '),
      rs.map((r) => r.timeouts).join(' / '),
      rs.map((r) => r.non2xx).join(' / '),
      Object.entries(causes).map(([c, n]) => `${c}: ${n}`).join(', ') || '-',
      rs.map((r) => fmt(r.reloadMs)).join(' / '),
      fmt(median(rs.map((r) => r.baseRps))),
      `${fmt(median(rs.map((r) => r.minPct)))}% / ${fmt(median(rs.map((r) => r.meanPct)))}%`,
    ]);
  }
}
process.stdout.write(`\n${opts.reloads} reloads back to back per run, ${opts.connections} connections, ${opts.instances} workers, ${opts.runs} runs (per-run values separated by /)\n\n`);
process.stdout.write(`${table(['clients', 'target', 'requests', 'errors', 'timeouts', 'non-2xx', 'failure causes (all runs)', 'reload ms (median of each run)', 'baseline req/s', 'dip: lowest 100 ms / mean during reloads'], rows)}\n`);
if (leaks.length) process.stdout.write(`\nleaked processes (killed): ${JSON.stringify(leaks)}\n`);
