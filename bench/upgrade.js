// node bench/upgrade.js: replacing the daemon under load, superd vs PM2, same run, same app
// (examples/hello, --instances workers). superd: `super upgrade` (a successor daemon takes
// the listening sockets over); PM2: `pm2 update` (its own daemon replacement: save, kill
// the daemon and every app, resurrect).
//
// For each target, a strict keep-alive client and a strict `Connection: close` client
// (test/helpers/strict-client.js: every request without a 2xx answer is counted, by cause) run
// together while the driver runs --upgrades replacements back to back. Reported: failed
// requests by cause for each client, the longest gap without an answered request (either
// client) during the replacements, and the wall time of each replacement.
//
//   node bench/upgrade.js [--upgrades 5] [--instances 4] [--connections 10] [--only superd,pm2]
import { startSuperd, startPm2, leaks, run, SUPER_BIN, PM2_BIN, sleep, stopAllOnExit } from './targets.js';
import { startLoad } from '../test/helpers/strict-client.js';
import { median, fmt, table } from './stats.js';
import { benchArgs } from './lib/args.js';

const USAGE = 'node bench/upgrade.js [--upgrades 5] [--instances 4] [--connections 10] [--only superd,pm2]';
const opts = benchArgs(process.argv.slice(2), {
  defaults: { upgrades: 5, instances: 4, connections: 10, only: ['superd', 'pm2'] },
  choices: { only: ['superd', 'pm2'] },
  lists: ['only'],
  usage: USAGE,
});

stopAllOnExit();

const cmd = (file, args, env) => run(file, args, { env, timeout: 600000 });

const TARGETS = {
  superd: {
    label: 'superd: super upgrade',
    start: () => startSuperd({ instances: opts.instances }),
    replace: (t) => cmd(process.execPath, [SUPER_BIN, 'upgrade'], t.env),
  },
  pm2: {
    label: 'PM2: pm2 update',
    start: () => startPm2({ instances: opts.instances }),
    replace: (t) => cmd(PM2_BIN, ['update'], t.env),
  },
};

/** Tracks the longest time without an answered request while `measuring`. */
function gapObserver() {
  const o = {
    measuring: false,
    last: 0,
    longest: 0,
    onResponse(conn, status) {
      if (status < 200 || status > 299) return;
      const now = Date.now();
      if (o.measuring) o.longest = Math.max(o.longest, now - o.last);
      o.last = now;
    },
    onFailure() {},
  };
  return o;
}

async function runTarget(kind) {
  const spec = TARGETS[kind];
  const target = await spec.start();
  try {
    const gaps = gapObserver();
    const common = { port: target.port, connections: opts.connections, maxMs: 30 * 60 * 1000, timeout: 10000, observer: gaps };
    const keepAlive = startLoad({ ...common, keepAlive: true });
    const close = startLoad({ ...common, keepAlive: false });
    await sleep(2000); // warm-up
    gaps.measuring = true;
    const walls = [];
    for (let i = 0; i < opts.upgrades; i++) {
      const a = Date.now();
      await spec.replace(target);
      walls.push(Date.now() - a);
      process.stderr.write(`${kind}: replacement ${i + 1} took ${walls.at(-1)} ms\n`);
    }
    await sleep(1500); // the old workers finish; a gap that lasts past the last one counts
    gaps.onResponse(null, 200); // closes a gap still open at the end
    gaps.measuring = false;
    const [ka, cl] = [await keepAlive.stop(), await close.stop()];
    return { ka, cl, walls, longestGap: gaps.longest };
  } finally {
    await target.stop();
  }
}

const causes = (r) => [...Object.entries(r.errors).map(([c, n]) => `${c}: ${n}`), ...(r.non2xx ? [`non-2xx: ${r.non2xx}`] : [])].join(', ') || '-';
const rows = [];
for (const kind of opts.only) {
  const r = await runTarget(kind);
  process.stderr.write(`${kind}: keep-alive ${r.ka.sent} sent ${r.ka.failed + r.ka.non2xx} failed; close ${r.cl.sent} sent ${r.cl.failed + r.cl.non2xx} failed; longest gap ${r.longestGap} ms\n`);
  rows.push([
    TARGETS[kind].label,
    `${fmt(r.ka.sent)} / ${fmt(r.cl.sent)}`,
    `${r.ka.failed + r.ka.non2xx} (${causes(r.ka)})`,
    `${r.cl.failed + r.cl.non2xx} (${causes(r.cl)})`,
    fmt(r.longestGap),
    `${fmt(median(r.walls))} (${r.walls.map((w) => fmt(w)).join(', ')})`,
  ]);
}
process.stdout.write(`\n${opts.upgrades} daemon replacements back to back, ${opts.instances} workers, ${opts.connections} keep-alive + ${opts.connections} Connection: close connections\n`);
process.stdout.write(`command: node bench/upgrade.js ${process.argv.slice(2).join(' ')}\n\n`);
process.stdout.write(`${table(['target', 'requests (keep-alive / close)', 'failed, keep-alive (causes)', 'failed, close (causes)', 'longest gap without an answer, ms', 'replacement ms, median (each)'], rows)}\n`);
if (leaks.length) process.stdout.write(`\nleaked processes (killed): ${JSON.stringify(leaks)}\n`);
