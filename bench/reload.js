// npm run bench:reload -- reloads under load at scale: superd rolling, superd surge, PM2
// (and optionally a hand-written node:cluster primary), same run, same app
// (examples/hello), for each worker count of --sizes. The fork-mode targets (superd-fork,
// pm2-fork) run one fork-mode process, whatever --sizes says: superd's listens on a socket
// the daemon holds and its replacement accepts beside it (lib/master/process/shared-listen.js),
// PM2's reload of it is a restart.
//
// For each size, client mode (keep-alive, Connection: close) and target: a strict client
// (test/helpers/strict-client.js: every request without a 2xx answer is counted, by cause)
// keeps --connections connections busy while the driver runs --reloads reloads back to
// back. Reported per row, medians across runs: failed requests by cause, reload wall time,
// ms per worker, the throughput dip (lowest 100 ms bucket and mean during reloads, against
// the median bucket before the first reload) and the peak resident memory of the target's
// processes during the reloads (sampled every 250 ms), against its memory before.
//
//   node bench/reload.js [--sizes 2,4,8,16,32] [--runs 1] [--reloads 3] [--connections 50]
//                        [--only superd-rolling,superd-surge,pm2,raw,raw-floor,superd-fork,pm2-fork,superd-scale,pm2-scale] [--modes keep-alive,close]
//                        [--app 'max_surge: 25%;probation: 500ms'] [--scheduling reuseport]
// --app adds keys (';'-separated YAML lines) to the superd targets' app, to compare settings;
// --scheduling sets the superd targets' daemon-wide `scheduling` (default: the file says none).
// After each superd row, stderr shows where the last reload's time went (bench/lib/reload-timeline.js).
// superd-scale and pm2-scale measure a scale-down instead: each "reload" scales the app to half
// its workers, then back (`super scale`, `pm2 scale`), so the retiring workers' sockets and
// connections are what is measured.
import { startSuperd, startPm2, startRaw, leaks, run, targetRss, SUPER_BIN, PM2_BIN, sleep, stopAllOnExit } from './targets.js';
import { startLoad } from '../test/helpers/strict-client.js';
import { median, fmt, table } from './stats.js';
import { benchArgs } from './lib/args.js';
import { lastReloadTimeline, formatTimeline } from './lib/reload-timeline.js';

const TARGET_NAMES = ['superd-rolling', 'superd-surge', 'pm2', 'raw', 'raw-floor', 'superd-fork', 'pm2-fork', 'superd-scale', 'pm2-scale'];
const USAGE = "node bench/reload.js [--sizes 2,4,8,16,32] [--runs 1] [--reloads 3] [--connections 50] [--only superd-rolling,superd-surge,pm2,raw,raw-floor,superd-fork,pm2-fork,superd-scale,pm2-scale] [--modes keep-alive,close] [--app 'key: value;...'] [--scheduling auto|round-robin|os|reuseport]";
const opts = benchArgs(process.argv.slice(2), {
  defaults: { sizes: ['2', '4', '8', '16', '32'], runs: 1, reloads: 3, connections: 50, only: ['superd-rolling', 'superd-surge', 'pm2', 'raw-floor'], modes: ['keep-alive', 'close'], app: '', scheduling: '' },
  choices: { only: TARGET_NAMES, modes: ['keep-alive', 'close'], scheduling: ['', 'auto', 'round-robin', 'os', 'reuseport'] },
  lists: ['sizes', 'only', 'modes'],
  usage: USAGE,
});
const sizes = opts.sizes.map(Number);
const appKeys = opts.app.split(';').map((l) => l.trim()).filter(Boolean);
const top = opts.scheduling ? [`scheduling: ${opts.scheduling}`] : [];
if (!sizes.every((n) => Number.isInteger(n) && n > 0 && n <= 128)) {
  process.stderr.write(`bench: --sizes takes worker counts from 1 to 128\nusage: ${USAGE}\n`);
  process.exit(2);
}

stopAllOnExit();

const cmd = (file, args, env) => run(file, args, { env, timeout: 600000 });
/** A scale-down "reload": to half of `n` workers, then back to `n`, through `scale(to)`. */
async function halfAndBack(n, scale) {
  for (const to of [Math.max(1, Math.floor(n / 2)), n]) await scale(to);
}
const superReload = (t) => cmd(process.execPath, [SUPER_BIN, 'reload', 'bench-hello'], t.env);

const TARGETS = {
  'superd-rolling': {
    label: 'superd rolling',
    start: (instances) => startSuperd({ instances, top, app: ['reload_strategy: rolling', ...appKeys] }),
    reload: superReload,
  },
  'superd-surge': {
    label: 'superd surge',
    start: (instances) => startSuperd({ instances, top, app: ['reload_strategy: surge', ...appKeys] }),
    reload: superReload,
  },
  pm2: {
    label: 'pm2 reload',
    start: (instances) => startPm2({ instances }),
    reload: (t) => cmd(PM2_BIN, ['reload', 'bench-hello'], t.env),
  },
  'superd-scale': {
    label: 'superd scale down and up',
    start: (instances) => startSuperd({ instances, top, app: appKeys }),
    reload: (t, n) => halfAndBack(n, (to) => cmd(process.execPath, [SUPER_BIN, 'scale', 'bench-hello', String(to)], t.env)),
    noTimeline: true,
  },
  'pm2-scale': {
    label: 'pm2 scale down and up',
    start: (instances) => startPm2({ instances }),
    reload: (t, n) => halfAndBack(n, (to) => cmd(PM2_BIN, ['scale', 'bench-hello', String(to)], t.env)),
  },
  'superd-fork': {
    label: 'superd fork mode',
    workers: 1,
    start: () => startSuperd({ instances: 1, app: ['exec_mode: fork', ...appKeys] }),
    reload: superReload,
  },
  'pm2-fork': {
    label: 'pm2 reload, fork mode',
    workers: 1,
    start: () => startPm2({ instances: 1, fork: true }),
    reload: (t) => cmd(PM2_BIN, ['reload', 'bench-hello'], t.env),
  },
  raw: {
    label: 'raw node:cluster',
    start: (instances) => startRaw({ instances, keepIpc: true }),
    reload: (t) => new Promise((resolve) => {
      t.child.once('message', resolve);
      process.kill(t.child.pid, 'SIGHUP');
    }),
  },
  // What the host itself allows: every replacement forked at once, the old workers
  // disconnected once all listen (bench/raw-cluster.js, 'reload-all').
  'raw-floor': {
    label: 'raw floor',
    start: (instances) => startRaw({ instances, keepIpc: true, name: 'raw floor' }),
    reload: (t) => new Promise((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error('raw floor: no reload answer within 60 s')), 60000);
      const onMessage = (m) => {
        if (!m?.reloaded) return;
        clearTimeout(timer);
        t.child.off('message', onMessage);
        t.lastFloor = m.reloaded;
        resolve();
      };
      t.child.on('message', onMessage);
      t.child.send('reload-all');
    }),
  },
};

// The daemon's steps of the last reload, and what the wall time adds to them: the CLI's
// start-up and connection, the file's re-read, and the CLI's exit after the answer.
/** @param {string} home  @param {number[]} window  [start, end] of the reload, ms epoch */
function superdTimeline(home, [a, b]) {
  const t = lastReloadTimeline(home, 'bench-hello');
  return t ? `${formatTimeline(t)} | outside it (CLI, connect, file re-read) ${b - a - Math.round(t.total)}` : formatTimeline(t);
}

async function runOnce(kind, size, keepAlive) {
  const spec = TARGETS[kind];
  const instances = spec.workers ?? size;
  const target = await spec.start(instances);
  try {
    const load = startLoad({ port: target.port, connections: opts.connections, keepAlive, maxMs: 30 * 60 * 1000, timeout: 10000 });
    const t0 = Date.now();
    await sleep(3000); // baseline (the first second is left out: fresh workers warm up)
    const baseMem = targetRss(target);
    let peakMem = baseMem;
    const sampler = setInterval(() => (peakMem = Math.max(peakMem, targetRss(target))), 250);
    const windows = [];
    try {
      for (let i = 0; i < opts.reloads; i++) {
        const a = Date.now();
        await spec.reload(target, instances);
        windows.push([a - t0, Date.now() - t0]);
      }
    } finally {
      clearInterval(sampler);
    }
    const timeline = spec.noTimeline ? undefined : target.env?.SUPER_HOME ? superdTimeline(target.env.SUPER_HOME, windows.at(-1))
      : target.lastFloor ? `all replacements listening ${target.lastFloor.listening} | old workers exited ${target.lastFloor.exited}` : undefined;
    await sleep(1500); // let old workers finish, and show the recovery
    const r = await load.stop();
    const bucket = 100;
    const base = median(r.buckets.slice(1000 / bucket, 3000 / bucket - 1));
    const during = [];
    for (const [a, b] of windows) for (let k = Math.floor(a / bucket); k < Math.ceil(b / bucket); k++) during.push(r.buckets[k] ?? 0);
    const reloadMs = median(windows.map(([a, b]) => b - a));
    return {
      sent: r.sent,
      failed: r.failed,
      errors: r.errors,
      timeouts: r.errors.timeout ?? 0,
      non2xx: r.non2xx,
      reloadMs,
      msPerWorker: reloadMs / instances,
      baseRps: (base * 1000) / bucket,
      minPct: (100 * Math.min(...during)) / base,
      meanPct: (100 * during.reduce((x, y) => x + y, 0)) / during.length / base,
      baseMem,
      peakMem,
      timeline,
    };
  } finally {
    await target.stop();
  }
}

const results = new Map(); // `${size} ${mode} ${kind}` -> [run]
for (let run = 1; run <= opts.runs; run++) {
  for (const size of sizes) {
    for (const mode of opts.modes) {
      for (const kind of opts.only) {
        const r = await runOnce(kind, size, mode === 'keep-alive');
        const key = `${size} ${mode} ${kind}`;
        results.set(key, [...(results.get(key) ?? []), r]);
        process.stderr.write(`run ${run} ${size} workers ${mode} ${kind}: ${r.sent} sent, ${r.failed} failed ${JSON.stringify(r.errors)}, ${r.non2xx} non-2xx, reload ${fmt(r.reloadMs)} ms\n`);
        if (r.timeline !== undefined) process.stderr.write(`  last reload, ms after it began in the ${kind === 'raw-floor' ? 'primary' : 'daemon'}: ${r.timeline}\n`);
      }
    }
  }
}

const MB = 1024 * 1024;
const rows = [];
for (const size of sizes) {
  for (const mode of opts.modes) {
    for (const kind of opts.only) {
      const rs = results.get(`${size} ${mode} ${kind}`);
      const causes = {};
      for (const r of rs) for (const [c, n] of Object.entries(r.errors)) causes[c] = (causes[c] ?? 0) + n;
      rows.push([
        String(size),
        mode,
        TARGETS[kind].label,
        rs.map((r) => fmt(r.sent)).join(' / '),
        rs.map((r) => r.failed + r.non2xx).join(' / '),
        [...Object.entries(causes).map(([c, n]) => `${c}: ${n}`), ...(rs.some((r) => r.non2xx) ? [`non-2xx: ${rs.reduce((x, r) => x + r.non2xx, 0)}`] : [])].join(', ') || '-',
        rs.map((r) => fmt(r.reloadMs)).join(' / '),
        fmt(median(rs.map((r) => r.msPerWorker))),
        `${fmt(median(rs.map((r) => r.minPct)))}% / ${fmt(median(rs.map((r) => r.meanPct)))}%`,
        `${fmt(median(rs.map((r) => r.baseMem)) / MB)} -> ${fmt(median(rs.map((r) => r.peakMem)) / MB)}`,
      ]);
    }
  }
}
process.stdout.write(`\n${opts.reloads} reloads back to back per run, ${opts.connections} connections, ${opts.runs} run${opts.runs === 1 ? '' : 's'} (per-run values separated by /)\n`);
process.stdout.write(`command: node bench/reload.js ${process.argv.slice(2).join(' ')}\n\n`);
process.stdout.write(`${table(['workers', 'clients', 'target', 'requests', 'failed', 'failure causes (all runs)', 'reload ms (median of each run)', 'ms per worker', 'dip: lowest 100 ms / mean during reloads', 'memory MB: before -> peak during reloads'], rows)}\n`);
if (leaks.length) process.stdout.write(`\nleaked processes (killed): ${JSON.stringify(leaks)}\n`);
