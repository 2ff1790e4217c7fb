#!/usr/bin/env node
// The README's picture of `super dashboard` (docs/images/dashboard.png): examples/multi-app
// (api: 2 workers, jobs: one process that logs) under a light paced load for --warm seconds,
// so the charts have points, then one headless Chromium screenshot of the page.
//   node bench/dashboard-screenshot.js [--warm 40] [--out docs/images/dashboard.png]
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { markedEnv, reapMarked, stopAllOnExit, freePort, sleep, ROOT, run, SUPER_BIN } from './targets.js';
import { benchArgs } from './lib/args.js';
import { launchChromium, startDashboard } from '../test/helpers/chromium.js';
import { needChromium } from './lib/need-chromium.js';
import { startLoad } from '../test/helpers/strict-client.js';

const opts = benchArgs(process.argv.slice(2), {
  defaults: { warm: 40, out: 'docs/images/dashboard.png' },
  fractional: ['warm'],
  usage: 'node bench/dashboard-screenshot.js [--warm S] [--out FILE]',
});
needChromium();
stopAllOnExit();

const home = fs.mkdtempSync(path.join(os.tmpdir(), 'superd-shot-'));
const { env, mark } = markedEnv('shot', { SUPER_HOME: home });
const port = await freePort();
const app = (f) => JSON.stringify(path.join(ROOT, 'examples/multi-app', f));
const eco = path.join(home, 'ecosystem.yml');
fs.writeFileSync(eco, `apps:\n  - name: api\n    script: ${app('api.js')}\n    instances: 2\n    env: { PORT: "${port}", DATABASE_PASSWORD: example }\n` +
  `  - name: jobs\n    script: ${app('jobs.cjs')}\n    exec_mode: fork\n    env: { TICK_MS: "1000", NODE_ENV: production }\n`);
let dash;
let browser;
try {
  await run(process.execPath, [SUPER_BIN, 'start', eco], { env });
  dash = await startDashboard(home, ['--listen', `127.0.0.1:${await freePort()}`], { env });
  browser = await launchChromium({ viewport: { width: 1280, height: 900 } });
  const page = await browser.newPage();
  await page.goto(dash.url); // open from the start: the charts fill while the load runs
  const load = startLoad({ port, connections: 2, pauseMs: 5, maxMs: opts.warm * 1000 });
  await sleep(opts.warm * 1000);
  await load.stop();
  await page.locator('[data-app="api"] .app-name').click(); // its settings and per-worker charts
  await sleep(1500);
  await page.screenshot({ path: path.resolve(ROOT, opts.out) });
  process.stdout.write(`${opts.out}\n`);
} finally {
  await browser?.close();
  await dash?.stop();
  await run(process.execPath, [SUPER_BIN, 'kill'], { env }).catch(() => {});
  await reapMarked('shot', mark);
  fs.rmSync(home, { recursive: true, force: true });
}
