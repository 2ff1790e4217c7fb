// npm run soak -- the chaos soak (issue 7 part 4; not in CI). Bounded: --minutes (default 10).
//
// A superd daemon runs in the foreground (`super daemon --foreground --resurrect`) under a
// small supervisor that restarts it whenever it exits (bench/lib/daemon-supervisor.js, as
// systemd would), with its own temp SUPER_HOME. It runs examples/hello with 4 cluster
// workers (saved with `super save`, so a restarted daemon resurrects it), under constant
// keep-alive load from the strict client (test/helpers/strict-client.js: every request
// without a 2xx answer counts), plus a few `Connection: close` clients, so that new
// connections keep going through the daemon's round-robin handoff during every operation. A driver, randomized by a printed seed (--seed replays
// it), does one operation at a time and waits for the app to settle between them:
//   - SIGKILL of a random worker;
//   - `super reload`;
//   - `super scale app 6`, then back to 4;
//   - once, around the middle: SIGTERM to the daemon (a graceful stop: every app stops),
//     and the supervisor starts it again;
//   - with --daemon-kill yes, also once at three quarters: SIGKILL of the daemon (its
//     workers exit with it; the supervisor starts it again, it resurrects the app);
//   - with --overlap yes, a fourth operation in the mix: a SIGKILL of a random worker in
//     the middle of a reload (old, replacement or already replaced).
// Every failed request is attributed to a cause (bench/lib/soak-attribution.js); the
// daemon's RSS is sampled every 2 s. The report (markdown) goes to stdout and to --out.
//
//   node bench/soak.js [--minutes 10] [--seed 20261121] [--connections 16] [--close-connections 2]
//                      [--instances 4]
//                      [--out bench/results/soak.md] [--keep no|yes] [--daemon-kill no|yes]
//                      [--overlap no|yes]
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { markedEnv, freePort, run, reapMarked, killEverythingSync, leaks, SUPER_BIN, HELLO, ROOT, sleep } from './targets.js';
import { startLoad } from '../test/helpers/strict-client.js';
import { benchArgs } from './lib/args.js';
import { seededRandom } from './lib/seeded-random.js';
import { DaemonSupervisor } from './lib/daemon-supervisor.js';
import { connect } from '../lib/ipc/client.js';
import { Attribution, KILLED_CONN, NEW_CONN_AT_KILL, UNEXPLAINED } from './lib/soak-attribution.js';
import { rssSummary, failureTable, median, fmt, table } from './lib/soak-report.js';

const USAGE = 'node bench/soak.js [--minutes 10] [--seed 20261121] [--connections 16] [--close-connections 2] [--instances 4] [--out bench/results/soak.md] [--keep no|yes] [--daemon-kill no|yes] [--overlap no|yes]';
const opts = benchArgs(process.argv.slice(2), {
  defaults: { minutes: 10, seed: 20261121, connections: 16, 'close-connections': 2, instances: 4, out: 'bench/results/soak.md', keep: 'no', 'daemon-kill': 'no', overlap: 'no' },
  fractional: ['minutes'],
  choices: { keep: ['no', 'yes'], 'daemon-kill': ['no', 'yes'], overlap: ['no', 'yes'] },
  usage: USAGE,
});

const APP = 'soak-hello';
const N = opts.instances;
const GRACE = 1000; // a window stays open this long after the app settled
const WARMUP = 3000; // load only, before the first operation
const TAIL = 5000; // load only, after the last operation
const rng = seededRandom(opts.seed);
const t0 = Date.now();
const say = (msg) => process.stderr.write(`[soak +${((Date.now() - t0) / 1000).toFixed(1)}s] ${msg}\n`);

const home = fs.mkdtempSync(path.join(os.tmpdir(), 'superd-soak-'));
const port = await freePort();
const { env, mark } = markedEnv('soak', { SUPER_HOME: home });
const eco = path.join(home, 'soak.yml');
fs.writeFileSync(eco, [
  'apps:',
  `  - name: ${APP}`,
  `    script: ${JSON.stringify(HELLO)}`,
  `    cwd: ${JSON.stringify(path.dirname(HELLO))}`,
  `    instances: ${N}`,
  '    env:',
  `      PORT: "${port}"`,
  '',
].join('\n'));
const cli = (...args) => run(process.execPath, [SUPER_BIN, ...args], { env, timeout: 120000 });
const supervisor = new DaemonSupervisor({
  // --expose-gc: the heap samples below are taken after a full GC (stats {gc: true}).
  argv: [process.execPath, '--expose-gc', SUPER_BIN, 'daemon', '--foreground', '--resurrect'],
  env,
  cwd: ROOT,
  logFile: path.join(home, 'foreground.log'),
});

// ---- bookkeeping ----
const attribution = new Attribution();
const ops = { kills: [], reloads: [], scaleUps: [], scaleDowns: [], daemonRestarts: [], daemonKills: [], overlaps: [] };
const rss = []; // {t, pid, kb, heapKb}: VmRSS, and the daemon's JS heap in use (stats op)
const restartsSeen = new Map(); // `${daemonPid}:${slot}` -> highest `restarts` seen
let loads = [];
const timers = [];

/** The daemon's live JS heap, KB, after a full GC (its `stats` op); null when not asked or no answer. */
async function heapUsed(superHome, gc) {
  if (!gc) return null;
  const c = await connect(superHome).catch(() => null);
  if (!c) return null;
  try {
    return Math.round((await c.request('stats', { gc: true })).heap_used / 1024);
  } finally {
    c.close();
  }
}

// ---- cleanup: everything started is stopped, on success, error and Ctrl-C ----
let cleaning = null;
function cleanup() {
  cleaning ??= (async () => {
    for (const t of timers) clearInterval(t);
    supervisor.stopping = true; // no restart from here on
    await cli('kill').catch(() => {});
    await supervisor.stop();
    await reapMarked('soak', mark);
    if (opts.keep === 'yes') say(`SUPER_HOME kept: ${home}`);
    else fs.rmSync(home, { recursive: true, force: true });
  })();
  return cleaning;
}
process.on('exit', killEverythingSync);
process.on('SIGINT', () => {
  say('interrupted; stopping everything');
  for (const l of loads) l.stop();
  cleanup().finally(() => process.exit(130));
});

// ---- talking to the daemon ----
async function lsApp() {
  const pid = supervisor.pid;
  const data = JSON.parse(await cli('ls', '--json'));
  const app = data.apps.find((a) => a.name === APP);
  for (const w of app?.workers ?? []) {
    const key = `${pid}:${w.slot}`;
    restartsSeen.set(key, Math.max(restartsSeen.get(key) ?? 0, w.restarts));
  }
  return app;
}

/** Waits until the app has exactly n online workers, none being replaced, `gone` not among them. */
async function settle(n, { timeout = 60000, gone = null } = {}) {
  const deadline = Date.now() + timeout;
  let ws = [];
  for (;;) {
    const app = await lsApp().catch(() => null);
    ws = app?.workers ?? [];
    if (ws.length === n && ws.every((w) => w.status === 'online' && w.pid && !w.replacing && w.pid !== gone)) return ws;
    if (Date.now() > deadline) throw new Error(`${APP} did not settle at ${n} online workers within ${timeout} ms: ${JSON.stringify(ws.map((w) => [w.slot, w.pid, w.status]))}`);
    await sleep(250);
  }
}

// ---- the operations ----
/** SIGKILLs a random worker (`replacing` pids count: a reload's new workers); returns it. */
async function sigkillRandomWorker() {
  const app = await lsApp();
  const pids = app.workers.flatMap((w) => [[w.slot, w.pid], ...(w.replacing ? [[w.slot, w.replacing]] : [])]).filter(([, pid]) => pid);
  const [slot, pid] = rng.pick(pids.sort((a, b) => a[0] - b[0] || a[1] - b[1]));
  attribution.killedAt(pid, Date.now());
  try {
    process.kill(pid, 'SIGKILL');
  } catch { /* already gone */ }
  ops.kills.push({ slot, pid });
  return { slot, pid };
}

async function killWorker() {
  const close = attribution.open('SIGKILL');
  const { slot, pid } = await sigkillRandomWorker();
  say(`SIGKILL ${APP}#${slot} (pid ${pid})`);
  await settle(N, { gone: pid });
  close(GRACE);
}

/** --overlap: a reload with a SIGKILL in its middle. The reload may fail (a replacement killed). */
async function reloadWithKill() {
  const close = attribution.open('reload + SIGKILL');
  const a = Date.now();
  const reloading = cli('reload', APP).then(() => 'ok', (err) => /E_[A-Z_]+/.exec(err.message)?.[0] ?? 'failed');
  await sleep(rng.int(300, 4000));
  const { slot, pid } = await sigkillRandomWorker();
  const outcome = await reloading;
  await settle(N, { gone: pid });
  ops.overlaps.push({ ms: Date.now() - a, outcome });
  close(GRACE);
  say(`reload + SIGKILL of ${APP}#${slot} (pid ${pid}) after ${ops.overlaps.at(-1).ms} ms: reload ${outcome}${outcome === 'ok' ? '' : ' (a replacement was killed: the reload stops, the old worker stays)'}`);
}

async function timedOp(kind, list, n, ...args) {
  const close = attribution.open(kind);
  const a = Date.now();
  await cli(...args);
  await settle(n);
  list.push(Date.now() - a);
  close(GRACE);
  say(`${kind}: ${args.join(' ')} (${Date.now() - a} ms to settle)`);
}

const reload = () => timedOp('reload', ops.reloads, N, 'reload', APP);
async function scale() {
  await timedOp('scale up', ops.scaleUps, N + 2, 'scale', APP, String(N + 2));
  await sleep(rng.int(1000, 3000));
  await timedOp('scale down', ops.scaleDowns, N, 'scale', APP, String(N));
}

async function restartDaemon() {
  const close = attribution.open('daemon restart');
  const a = Date.now();
  const exited = supervisor.nextExit();
  const old = supervisor.pid;
  say(`SIGTERM to the daemon (pid ${old})`);
  process.kill(old, 'SIGTERM');
  const life = await exited;
  await settle(N, { timeout: 120000 });
  const r = { pid: old, newPid: supervisor.pid, exit: life.signal ?? life.code, stopMs: life.exitedAt - a, backMs: Date.now() - life.exitedAt };
  ops.daemonRestarts.push(r);
  close(GRACE);
  say(`daemon restarted: pid ${old} exited (${r.exit}) after ${r.stopMs} ms; pid ${r.newPid} serving ${N} workers ${r.backMs} ms later`);
}

/** --daemon-kill: the daemon dies hard; its workers exit with it (their IPC channel closes). */
async function killDaemon() {
  const close = attribution.open('daemon SIGKILL');
  const exited = supervisor.nextExit();
  const old = supervisor.pid;
  say(`SIGKILL to the daemon (pid ${old})`);
  process.kill(old, 'SIGKILL');
  const life = await exited;
  await settle(N, { timeout: 120000 });
  const r = { pid: old, newPid: supervisor.pid, backMs: Date.now() - life.exitedAt };
  ops.daemonKills.push(r);
  close(GRACE);
  say(`daemon SIGKILLed: pid ${r.newPid} serving ${N} workers ${r.backMs} ms later`);
}

// ---- the run ----
let result;
try {
  say(`seed ${opts.seed}, ${opts.minutes} min, ${opts.connections} keep-alive connections, ${N} workers, SUPER_HOME ${home}`);
  supervisor.start();
  const upBy = Date.now() + 30000;
  while (!(await cli('ping').then(() => true, () => false))) {
    if (Date.now() > upBy) throw new Error(`the daemon did not answer within 30 s; see ${path.join(home, 'foreground.log')}`);
    await sleep(200);
  }
  await cli('start', eco);
  await cli('save');
  await settle(N);

  // RSS alone cannot tell a leak from the allocator keeping freed memory (it steps up under
  // connection load and stays); the JS heap after a full GC can. One GC every 10 s.
  let sampled = 0;
  let statsBusy = false;
  timers.push(setInterval(() => {
    const pid = supervisor.pid;
    if (!pid || statsBusy) return;
    statsBusy = true;
    heapUsed(home, sampled++ % 5 === 0).then((heapKb) => {
      const kb = Number(/VmRSS:\s+(\d+)/.exec(fs.readFileSync(`/proc/${pid}/status`, 'latin1'))?.[1]);
      if (kb) rss.push({ t: Date.now() - t0, pid, kb, heapKb });
    }).catch(() => { /* between two daemons */ }).finally(() => { statsBusy = false; });
  }, 2000));
  let lsBusy = false;
  timers.push(setInterval(() => {
    if (lsBusy) return;
    lsBusy = true;
    lsApp().catch(() => {}).finally(() => { lsBusy = false; });
  }, 5000));

  const loadT0 = Date.now();
  const observer = {
    onResponse(conn, status, body) {
      const pid = /pid (\d+)/.exec(body.toString('latin1'))?.[1];
      if (pid) conn.lastPid = Number(pid);
      if (status < 200 || status > 299) attribution.failure(conn, `HTTP ${status}`, Date.now());
    },
    onFailure: (conn, cause, sentAt) => attribution.failure(conn, cause, sentAt),
  };
  const maxMs = opts.minutes * 60000 + 600000;
  loads = [
    startLoad({ port, connections: opts.connections, keepAlive: true, maxMs, observer }),
    startLoad({ port, connections: opts['close-connections'], keepAlive: false, maxMs, observer }),
  ];
  await sleep(WARMUP);

  const tEnd = t0 + opts.minutes * 60000;
  const mid = t0 + (opts.minutes * 60000) / 2;
  const threeQuarters = t0 + (opts.minutes * 60000 * 3) / 4;
  const pick = { kill: killWorker, reload, scale, overlap: reloadWithKill };
  const mix = opts.overlap === 'yes' ? ['kill', 'reload', 'scale', 'overlap'] : ['kill', 'reload', 'scale'];
  while (Date.now() < tEnd - TAIL) {
    if (!ops.daemonRestarts.length && Date.now() >= mid) await restartDaemon();
    else if (opts['daemon-kill'] === 'yes' && !ops.daemonKills.length && Date.now() >= threeQuarters) await killDaemon();
    else await pick[rng.pick(mix)]();
    await sleep(rng.int(1000, 4000));
  }
  await sleep(Math.max(TAIL, tEnd - Date.now()));
  result = mergeResults(await Promise.all(loads.map((l) => l.stop())));
  result.bucketT0 = loadT0;
  await lsApp().catch(() => {});
} finally {
  for (const l of loads) l.stop();
  await cleanup();
}

/** The keep-alive and the close clients' results as one (their buckets share t0 within ms). */
function mergeResults([a, b]) {
  const add = (x, y) => {
    const out = { ...x };
    for (const [k, n] of Object.entries(y)) out[k] = (out[k] ?? 0) + n;
    return out;
  };
  return {
    sent: a.sent + b.sent,
    ok: a.ok + b.ok,
    failed: a.failed + b.failed,
    non2xx: a.non2xx + b.non2xx,
    errors: add(a.errors, b.errors),
    buckets: Array.from({ length: Math.max(a.buckets.length, b.buckets.length) }, (_, i) => (a.buckets[i] ?? 0) + (b.buckets[i] ?? 0)),
    ms: Math.max(a.ms, b.ms),
    closeSent: b.sent,
  };
}

// ---- the report ----
const secs = result.ms / 1000;
const expected = [
  KILLED_CONN, NEW_CONN_AT_KILL, 'SIGKILL (other connection)', 'daemon restart', ...(opts['daemon-kill'] === 'yes' ? ['daemon SIGKILL'] : []),
  'reload', 'scale up', 'scale down', ...(opts.overlap === 'yes' ? ['reload + SIGKILL'] : []), UNEXPLAINED,
];
const explain = {
  [KILLED_CONN]: 'expected: the worker died with the connection (its last answer came from the killed pid)',
  [NEW_CONN_AT_KILL]: 'expected: a new connection the primary had handed to the worker just before its SIGKILL (reset, not hung)',
  'SIGKILL (other connection)': 'any other failure while a SIGKILL was handled (a hung new connection would land here): target 0',
  'daemon restart': 'expected: the daemon is the cluster primary; its graceful stop closes the listening socket until the new daemon resurrects the app',
  reload: 'graceful: target 0',
  'scale up': 'graceful: target 0',
  'scale down': 'graceful: target 0',
  'daemon SIGKILL': 'expected: the primary and, with it, every worker die at once',
  'reload + SIGKILL': 'failures not on the killed worker\'s connections: target 0',
  [UNEXPLAINED]: 'no operation running: target 0',
};
const daemonWins = attribution.windows.filter((w) => w.kind.startsWith('daemon'));
let lowest = Infinity;
for (let s = 1; s < Math.floor(result.ms / 1000); s++) {
  const at = result.bucketT0 + s * 1000;
  if (daemonWins.some((w) => at + 1000 > w.start && at < w.end)) continue;
  const n = result.buckets.slice(s * 10, s * 10 + 10).reduce((x, y) => x + y, 0);
  lowest = Math.min(lowest, n);
}
const dr = ops.daemonRestarts[0];
const restarts = [...restartsSeen.values()].reduce((a, b) => a + b, 0);
const secondLife = supervisor.lives[1]; // the RSS fit: the daemon after the graceful restart
const fitUntil = supervisor.lives[2] ? supervisor.lives[2].startedAt - t0 : Infinity;
const rssInfo = rssSummary(rss, secondLife ? secondLife.startedAt - t0 + 30000 : Infinity, fitUntil);
const countBy = (xs) => [...new Set(xs)].map((x) => `${x} x${xs.filter((y) => y === x).length}`);
const ms = (xs) => (xs.length ? `${fmt(median(xs))} ms median (${fmt(Math.min(...xs))}-${fmt(Math.max(...xs))})` : '-');

const when = new Date(t0).toISOString().replace(/\.\d+Z$/, 'Z');
const report = [
  `## Soak ${when}: ${fmt(opts.minutes, opts.minutes % 1 ? 1 : 0)} min, seed ${opts.seed}`,
  '',
  `\`flock /tmp/superd-bench.lock npm run soak -- ${process.argv.slice(2).join(' ')}\` `
    + `(node ${process.version}, ${os.cpus().length} CPUs): examples/hello, ${N} cluster workers, ${opts.connections} keep-alive connections `
    + `and ${opts['close-connections']} \`Connection: close\` ones; seed ${opts.seed}.`,
  '',
  table(['load', ''], [
    ['requests sent', `${fmt(result.sent)} (${fmt(result.closeSent)} of them on \`Connection: close\` connections)`],
    ['answered 2xx', fmt(result.ok)],
    ['failed requests (all causes)', fmt(result.failed + result.non2xx - Object.entries(result.errors).filter(([c]) => c.startsWith('connect ')).reduce((a, [, n]) => a + n, 0))],
    ['failed connects (no request sent)', fmt(Object.entries(result.errors).filter(([c]) => c.startsWith('connect ')).reduce((a, [, n]) => a + n, 0))],
    ['req/s (2xx, whole run)', fmt(result.ok / secs)],
    ['lowest 1 s (2xx, outside daemon restarts)', fmt(lowest)],
  ]),
  '',
  '### Failures by cause',
  '',
  failureTable(attribution.rows, expected, explain),
  '',
  '### Operations',
  '',
  table(['operation', 'count', 'time to settle'], [
    ['SIGKILL of a random worker', fmt(ops.kills.length), 'until the slot is online again'],
    ['`super reload` (rolling)', fmt(ops.reloads.length), ms(ops.reloads)],
    [`\`super scale\` ${N} -> ${N + 2}`, fmt(ops.scaleUps.length), ms(ops.scaleUps)],
    [`\`super scale\` ${N + 2} -> ${N}`, fmt(ops.scaleDowns.length), ms(ops.scaleDowns)],
    ['daemon restart (SIGTERM, supervisor restarts it, --resurrect)', fmt(ops.daemonRestarts.length),
      dr ? `stop ${fmt(dr.stopMs)} ms, then ${fmt(dr.backMs)} ms until ${N} workers online (pid ${dr.pid} -> ${dr.newPid})` : '-'],
    ...(opts.overlap === 'yes' ? [['`super reload` with a SIGKILL in its middle', fmt(ops.overlaps.length),
      `${ms(ops.overlaps.map((o) => o.ms))}; reload outcomes: ${countBy(ops.overlaps.map((o) => o.outcome)).join('; ') || '-'}`]] : []),
    ...(opts['daemon-kill'] === 'yes' ? [['daemon SIGKILL (supervisor restarts it, --resurrect)', fmt(ops.daemonKills.length),
      ops.daemonKills.map((r) => `${fmt(r.backMs)} ms until ${N} workers online (pid ${r.pid} -> ${r.newPid})`).join('') || '-']] : []),
    ['worker restarts counted by superd (`super ls --json`)', fmt(restarts), `${ops.kills.length} SIGKILLs${ops.overlaps.some((o) => o.outcome !== 'ok') ? ' (a replacement killed in a failed reload is not restarted)' : ''}`],
    ['daemon starts by the supervisor', fmt(supervisor.lives.length), supervisor.lives.map((l) => `pid ${l.pid}: exit ${l.signal ?? l.code ?? 'running'}`).join('; ')],
  ]),
  '',
  '### Daemon RSS',
  '',
  rssInfo.table,
  '',
  `RSS: ${rssInfo.verdict}.`,
  '',
  `JS heap: ${rssInfo.heapVerdict}.`,
  '',
  leaks.length ? `Processes still alive after \`super kill\` (killed): ${JSON.stringify(leaks)}\n` : 'No process outlived `super kill`.\n',
].join('\n');

for (const cause of ['reload', 'scale up', 'scale down', UNEXPLAINED, 'SIGKILL (other connection)', 'reload + SIGKILL', 'daemon restart']) {
  const row = attribution.rows.get(cause);
  if (!row) continue;
  process.stderr.write(`\n${cause}: first failures ${JSON.stringify(row.samples.map((s) => ({ ...s, t: s.t - t0, sentAt: s.sentAt - t0 })))}\n`);
}
process.stdout.write(`\n${report}`);
fs.mkdirSync(path.dirname(path.resolve(ROOT, opts.out)), { recursive: true });
fs.writeFileSync(path.resolve(ROOT, opts.out), report);
say(`report written to ${opts.out}`);
// The run fails when a row whose target is 0 has failures, or the daemon's live JS heap grows.
const failedAt = (c) => (attribution.rows.get(c)?.requests ?? 0) + (attribution.rows.get(c)?.connects ?? 0);
const missed = ['SIGKILL (other connection)', 'reload', 'scale up', 'scale down', 'reload + SIGKILL', UNEXPLAINED]
  .filter((c) => failedAt(c) > 0)
  .map((c) => `${failedAt(c)} failures in "${c}" (target 0)`);
if (rssInfo.heapGrowing) missed.push('the daemon\'s JS heap grows');
if (missed.length) {
  say(`FAILED: ${missed.join('; ')}`);
  process.exitCode = 1;
}
