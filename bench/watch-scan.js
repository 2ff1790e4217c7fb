// Event-loop delay of the daemon's thread while watch mode scans a large tree.
//
//   node bench/watch-scan.js [--files 5000] [--runs 5]
//
// Generates a tree (--files files in dirs of 50, plus a node_modules of 2,000 files that
// is ignored) and, for each run, measures this thread's event-loop delay
// (perf_hooks.monitorEventLoopDelay, 1 ms resolution) from the moment watching starts until
// the initial scan is done, two ways:
//   idle       nothing (the floor of the measurement)
//   superd     the watch thread (lib/master/watch/watch-thread.js), as the daemon runs it
//   inline     chokidar@5 in the measured thread itself, as a watcher inside a daemon
//              (PM2's design) would run it, with the same ignore rules
// Then the same scan inside a real daemon (`super watch idle on` until the watch is ready),
// measured by the daemon itself through the `stats` op, against an idle window.
// Prints medians over runs: scan time, p50/p99/max delay in ms.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { Worker } from 'node:worker_threads';
import { watch } from 'chokidar';
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { makeIgnore } from '../lib/master/watch/watch-ignore.js';
import { connect } from '../lib/ipc/client.js';
import { benchArgs } from './lib/args.js';

const SUPER = fileURLToPath(new URL('../bin/super.js', import.meta.url));

const { files: FILES, runs: RUNS } = benchArgs(process.argv.slice(2), {
  defaults: { files: 5000, runs: 5 },
  usage: 'node bench/watch-scan.js [--files 5000] [--runs 5]',
});

const root = fs.mkdtempSync(path.join(os.tmpdir(), 'sd-watch-bench-'));
for (let i = 0; i < FILES; i++) {
  const dir = path.join(root, 'src', `d${Math.floor(i / 50)}`);
  if (i % 50 === 0) fs.mkdirSync(dir, { recursive: true });
  fs.writeFileSync(path.join(dir, `f${i}.js`), '// x\n');
}
for (let i = 0; i < 2000; i++) {
  const dir = path.join(root, 'node_modules', `m${i % 40}`);
  if (i < 40) fs.mkdirSync(dir, { recursive: true });
  fs.writeFileSync(path.join(dir, `f${i}.js`), '');
}

async function measure(scan) {
  const h = monitorEventLoopDelay({ resolution: 1 });
  const t0 = performance.now();
  h.enable();
  const count = await scan();
  h.disable();
  const ms = (ns) => ns / 1e6;
  return { scan_ms: performance.now() - t0, count, p50: ms(h.percentile(50)), p99: ms(h.percentile(99)), max: ms(h.max) };
}

function viaThread() {
  return new Promise((resolve, reject) => {
    const w = new Worker(new URL('../lib/master/watch/watch-thread.js', import.meta.url));
    w.on('error', reject);
    w.on('message', (m) => {
      if (!m.ready) return;
      w.terminate().then(() => resolve(m.count));
    });
    w.postMessage({ op: 'watch', app: 'bench', paths: [root], ignore: [], files: [], delay: 1000 });
  });
}

function inline() {
  return new Promise((resolve) => {
    const isIgnored = makeIgnore({ roots: [root] });
    const watcher = watch([root], { ignoreInitial: true, ignored: (p) => isIgnored(p) });
    watcher.on('ready', () => {
      let count = 0;
      for (const names of Object.values(watcher.getWatched())) count += names.length;
      watcher.close().then(() => resolve(count));
    });
  });
}

async function inDaemon() {
  const home = fs.mkdtempSync(path.join(os.tmpdir(), 'sd-wb-'));
  const env = { ...process.env, SUPER_HOME: home };
  fs.writeFileSync(path.join(root, 'idle.js'), 'setInterval(() => {}, 1000);\n');
  fs.writeFileSync(path.join(home, 'eco.yml'), `apps:\n  - name: idle\n    script: idle.js\n    cwd: ${root}\n    ready_on: spawn\n    min_uptime: 100ms\n`);
  const start = spawnSync(process.execPath, [SUPER, 'start', path.join(home, 'eco.yml')], { env, encoding: 'utf8' });
  if (start.status !== 0) throw new Error(start.stderr);
  const client = await connect(home);
  const rows = { idle: [], scan: [] };
  try {
    await client.request('stats', { reset: true });
    await client.request('subscribe', { topics: ['watch'] });
    let onReady = null;
    client.onEvent((e) => e.event === 'watch' && e.data.state === 'ready' && onReady?.(e.data));
    for (let r = 0; r < RUNS; r++) {
      await client.request('stats', { reset: true });
      await new Promise((res) => setTimeout(res, 750));
      rows.idle.push((await client.request('stats', {})).event_loop_delay_ms);
      const ready = new Promise((res) => (onReady = res));
      await client.request('stats', { reset: true });
      const t0 = performance.now();
      await client.request('watch', { app: 'idle', on: true });
      const { count } = await ready;
      const d = (await client.request('stats', {})).event_loop_delay_ms;
      rows.scan.push({ ...d, count, scan_ms: performance.now() - t0 });
      await client.request('watch', { app: 'idle', on: false });
    }
  } catch (err) {
    process.stderr.write(`daemon section skipped: ${err.message}\n`);
    return null;
  } finally {
    client.close();
    spawnSync(process.execPath, [SUPER, 'kill'], { env });
    fs.rmSync(home, { recursive: true, force: true });
  }
  return rows;
}

const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
};

const idle = () => new Promise((resolve) => setTimeout(() => resolve(0), 750));
const results = { idle: [], superd: [], inline: [] };
for (let r = 0; r < RUNS; r++) {
  // Interleaved, so all see the same machine state.
  results.idle.push(await measure(idle));
  results.superd.push(await measure(viaThread));
  results.inline.push(await measure(inline));
  process.stderr.write(`run ${r + 1}/${RUNS}: superd max ${results.superd.at(-1).max.toFixed(1)} ms, inline max ${results.inline.at(-1).max.toFixed(1)} ms\n`);
}

// The same scan in a real daemon, measured by the daemon itself (the `stats` op: its
// event-loop delay histogram, 10 ms resolution, reset at the start of each window).
const daemonRows = await inDaemon();
fs.rmSync(root, { recursive: true, force: true });

const f = (x) => x.toFixed(1);
console.log(`## Event-loop delay of the daemon thread during the initial watch scan (${FILES} files + 2,000 ignored in node_modules, medians of ${RUNS} runs, node ${process.version})\n`);
console.log('| watcher | paths watched | scan ms | delay p50 ms | delay p99 ms | delay max ms |');
console.log('| --- | --- | --- | --- | --- | --- |');
for (const [name, rs] of Object.entries(results)) {
  const label = { idle: 'no watcher (idle floor, 750 ms)', superd: 'superd (watch thread)', inline: 'chokidar in the daemon thread' }[name];
  console.log(`| ${label} | ${rs[0].count} | ${f(median(rs.map((x) => x.scan_ms)))} | ${f(median(rs.map((x) => x.p50)))} | ${f(median(rs.map((x) => x.p99)))} | ${f(median(rs.map((x) => x.max)))} |`);
}
if (daemonRows) {
  console.log(`\n## The same scan inside a superd daemon, as the daemon measures its own event loop (\`stats\` op, delay beyond its 10 ms timer resolution; medians of ${RUNS})\n`);
  console.log('| window | paths watched | ms | delay p50 ms | delay p99 ms | delay max ms |');
  console.log('| --- | --- | --- | --- | --- | --- |');
  const row = (label, rs, count) => console.log(`| ${label} | ${count} | ${f(median(rs.map((x) => x.scan_ms ?? x.window_ms)))} | ${f(median(rs.map((x) => x.p50)))} | ${f(median(rs.map((x) => x.p99)))} | ${f(median(rs.map((x) => x.max)))} |`);
  row('idle daemon', daemonRows.idle, 0);
  row('initial scan (super watch idle on -> ready)', daemonRows.scan, daemonRows.scan[0].count);
}
