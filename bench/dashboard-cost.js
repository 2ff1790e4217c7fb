#!/usr/bin/env node
// What `super dashboard` costs (issue 29): a daemon with --workers idle hello workers, and
// the CPU of the daemon and of the dashboard process (/proc/<pid>/stat) over windows of
// --window seconds in four phases:
//   no dashboard        the daemon alone (the baseline)
//   dashboard, no page  the dashboard runs but no page is open: it holds no subscription,
//                       so the daemon's cost must not move
//   page open           one headless Chromium page (test/helpers/chromium.js) on the dashboard,
//                       measured --settle seconds after it opened, and again a minute later
//                       (the daemon's watched path, run once a second, is still being
//                       compiled by V8 in the first window)
//   page closed         back to no page: the subscriptions are dropped again
//   bare subscriber     still no page, one plain client subscribed to the metrics topic:
//                       what any watcher (super monit too) costs the daemon, whose agents
//                       then report once a second
//   the floor           superd stopped; a bare node:cluster primary (bench/watched-primary.js)
//                       with as many workers doing only what watching cannot skip: the
//                       agents' reports once a second and a sample of every worker as the
//                       daemon takes it (their reports' figures, /proc's children lists)
// Also the page's weight (every file it loads, uncompressed) and its load time (navigation
// to the last worker row drawn), the median of --loads loads.
//   node bench/dashboard-cost.js [--workers 100] [--window 20] [--settle 12] [--loads 5]
// Prints a markdown table and writes bench/results/dashboard-cost-latest.json.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { startSuperd, startRaw, stopAllOnExit, stopAll, sleep, ROOT } from './targets.js';
import { median, fmt, table } from './stats.js';
import { benchArgs } from './lib/args.js';
import { launchChromium, startDashboard } from '../test/helpers/chromium.js';
import { needChromium } from './lib/need-chromium.js';
import { loadPage } from '../lib/dashboard/server.js';
import { connect } from '../lib/ipc/client.js';

const opts = benchArgs(process.argv.slice(2), {
  defaults: { workers: 100, window: 20, settle: 12, loads: 5 },
  fractional: ['window', 'settle'],
  usage: 'node bench/dashboard-cost.js [--workers N] [--window S] [--settle S] [--loads N]',
});
needChromium();
stopAllOnExit();

const HZ = 100; // USER_HZ
function ticks(pid) {
  const f = fs.readFileSync(`/proc/${pid}/stat`, 'latin1').split(') ')[1].split(' ');
  return Number(f[11]) + Number(f[12]);
}
/** Percent of one core used by each pid over `seconds`. */
async function cpuOver(pids, seconds) {
  const t0 = process.hrtime.bigint();
  const a = pids.map(ticks);
  await sleep(seconds * 1000);
  const secs = Number(process.hrtime.bigint() - t0) / 1e9;
  return pids.map((pid, i) => ((ticks(pid) - a[i]) / HZ / secs) * 100);
}

const target = await startSuperd({ instances: opts.workers, name: 'superd' });
const home = target.env.SUPER_HOME;
const daemonPid = Number(fs.readFileSync(path.join(home, 'daemon.pid'), 'utf8'));
const rows = [];
const out = { workers: opts.workers, window_s: opts.window, phases: {} };
let dash;
let browser;
try {
  process.stderr.write(`${opts.workers} workers up; settling ${opts.settle} s\n`);
  await sleep(opts.settle * 1000);
  const [alone] = await cpuOver([daemonPid], opts.window);
  rows.push(['no dashboard', fmt(alone, 2), '-']);
  out.phases.none = { daemon: alone };

  const port = 20000 + Math.floor(Math.random() * 10000);
  dash = await startDashboard(home, ['--listen', `127.0.0.1:${port}`], { env: target.env });
  await sleep(2000);
  const [d1, s1] = await cpuOver([daemonPid, dash.pid], opts.window);
  rows.push(['dashboard, no page', fmt(d1, 2), fmt(s1, 2)]);
  out.phases.dashboard_no_page = { daemon: d1, dashboard: s1 };

  browser = await launchChromium();
  const loadsMs = [];
  let page;
  for (let i = 0; i < opts.loads; i++) {
    await page?.close();
    page = await browser.newPage();
    // the page's own clock: from the start of its navigation to every worker's row drawn
    await page.addInitScript(`new MutationObserver((_, obs) => {
      if (document.querySelectorAll('tr[data-worker]').length < ${opts.workers}) return;
      window.drawnAt = performance.now();
      obs.disconnect();
    }).observe(document, { childList: true, subtree: true });`);
    await page.goto(dash.url);
    await page.waitForFunction(() => globalThis['drawnAt'] !== undefined, null, { timeout: 30_000 });
    loadsMs.push(await page.evaluate(() => globalThis['drawnAt']));
  }
  // The page stays open (a wall screen): its steady cost, not the daemon's first runs
  // (and JIT compilations) of the watched path.
  await sleep(opts.settle * 1000);
  const [d2, s2] = await cpuOver([daemonPid, dash.pid], opts.window);
  rows.push([`page open, from ${opts.settle} s after it opened`, fmt(d2, 2), fmt(s2, 2)]);
  out.phases.page_open = { daemon: d2, dashboard: s2 };
  // The same page a minute later: the daemon runs the watched path once a second, so V8
  // is still compiling it in the first window (both rows are reported).
  const later = Math.max(60, opts.settle + opts.window);
  await sleep((later - opts.settle - opts.window) * 1000);
  const [d2b, s2b] = await cpuOver([daemonPid, dash.pid], opts.window);
  rows.push([`page open, from ${later} s after it opened`, fmt(d2b, 2), fmt(s2b, 2)]);
  out.phases.page_open_later = { daemon: d2b, dashboard: s2b };
  await page.close();
  await sleep(2000);
  const [d3, s3] = await cpuOver([daemonPid, dash.pid], opts.window);
  rows.push(['page closed again', fmt(d3, 2), fmt(s3, 2)]);
  out.phases.page_closed = { daemon: d3, dashboard: s3 };

  // What any watcher costs the daemon (super monit, a script): one bare subscriber of the
  // metrics topic, the same pushes the dashboard asks for with a page open.
  const watcher = await connect(home);
  await watcher.request('subscribe', { topics: ['metrics'] });
  await sleep(opts.settle * 1000);
  const [bare] = await cpuOver([daemonPid], opts.window);
  watcher.close();
  rows.push(['no page, one bare metrics subscriber instead', fmt(bare, 2), '-']);
  out.phases.bare_subscriber = { daemon: bare };

  await browser.close();
  browser = null;
  await dash.stop();
  dash = null;
  await target.stop();
  const floor = await startRaw({ instances: opts.workers, primary: path.join(ROOT, 'bench/watched-primary.js'), name: 'watched primary' });
  process.stderr.write(`bare primary with ${opts.workers} watched workers up; settling ${opts.settle} s\n`);
  await sleep(opts.settle * 1000);
  const [bareFloor] = await cpuOver([floor.child.pid], opts.window);
  await floor.stop();
  rows.push([`the floor: a bare node:cluster primary, ${opts.workers} agents reporting once a second, sampled as the daemon samples`, fmt(bareFloor, 2), '-']);
  out.phases.floor = { primary: bareFloor };

  const files = loadPage();
  const bytes = Object.values(files).reduce((a, f) => a + f.body.length, 0);
  out.page = { files: Object.keys(files).length, bytes, load_ms_median: median(loadsMs) };
  out.loadavg = os.loadavg();
  process.stdout.write(`\n${opts.workers} idle workers, CPU in % of one core over ${opts.window} s windows (load average ${os.loadavg().map((l) => l.toFixed(1)).join(', ')})\n\n`);
  process.stdout.write(`${table(['phase', 'daemon', 'dashboard process'], rows)}\n\n`);
  process.stdout.write(`page: ${Object.keys(files).length} files, ${fmt(bytes / 1024)} KiB uncompressed; loaded with ${opts.workers} workers drawn in ${fmt(median(loadsMs))} ms (median of ${opts.loads})\n`);
  fs.mkdirSync(path.join(ROOT, 'bench/results'), { recursive: true });
  fs.writeFileSync(path.join(ROOT, 'bench/results/dashboard-cost-latest.json'), `${JSON.stringify(out, null, 2)}\n`);
} finally {
  await browser?.close();
  await dash?.stop();
  await stopAll();
}
