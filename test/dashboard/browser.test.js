// `super dashboard` in a real headless Chromium against a real daemon with real apps: one
// browser, one daemon and one dashboard for the whole file. The page lists the workers and
// their values move; a worker killed with SIGKILL shows its restart within 2 s; a reload
// from the page completes with 0 failed requests under load; log lines appear and filter;
// a page without the token sees nothing and may do nothing; a hostile app name and log line render as text;
// a deploy recorded on the daemon (super deploy) is shown beside the host.
/// <reference lib="dom" />
/* global document, window, location -- in the functions page.evaluate runs in the page */
import test from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import WebSocket from 'ws';
import { sandbox, freePort, lsJson } from '../helpers/harness.js';
import { startLoad } from '../helpers/load.js';
import { noChromium, launchChromium, startDashboard } from '../helpers/chromium.js';

const HOSTILE = '<img src=x onerror=window.__xss=1>';
const HOSTILE_LINE = '<b id=hostile-log>bold?</b> tick';

test('super dashboard in a browser', { skip: noChromium() ?? false, timeout: 120_000 }, async (t) => {
  const box = await sandbox(t);
  const port = await freePort();
  box.fixture('http-server.js');
  // An app whose name and output are markup: the page must show them as text.
  box.write('talker.js', `let n = 0;\nsetInterval(() => console.log(${JSON.stringify(HOSTILE_LINE)} + ' ' + n++), 200);\n`);
  const eco = box.write('eco.yml', [
    'apps:',
    '  - name: web', '    script: http-server.js', '    instances: 2', `    env: { PORT: "${port}", API_SECRET: hunter2 }`, '    kill_timeout: 5s',
    '    overload: { max_inflight: 100000 }', // never reached: its count (0) is shown
    `  - name: "${HOSTILE}"`, '    script: talker.js', '    ready_on: spawn', '    exec_mode: fork',
    '    instances: { min: 1, max: 1 }', // autoscaled (within 1-1): its bounds are shown
  ].join('\n'));
  await box.start(eco);
  const dashPort = await freePort();
  // A second host that nothing answers: shown down beside the live one.
  const deadHost = `127.0.0.1:${await freePort()}`;
  fs.writeFileSync(path.join(box.home, 'token'), `${'c'.repeat(64)}\n`, { mode: 0o600 });
  // --open runs $BROWSER: here a script that records the link it is given
  const opened = path.join(box.dir, 'opened');
  const browserScript = box.write('browser.sh', `#!/bin/sh\nprintf '%s' "$1" > "${opened}"\n`);
  fs.chmodSync(browserScript, 0o755);
  const dash = await startDashboard(box.home, ['--listen', `127.0.0.1:${dashPort}`, '--host', 'local', '--host', deadHost, '--open'], { env: { BROWSER: browserScript } });
  t.after(() => dash.stop());
  const browser = await launchChromium();
  t.after(() => browser.close());
  const page = await browser.newPage();
  const problems = [];
  page.on('pageerror', (e) => problems.push(`pageerror: ${e.message}`));
  page.on('console', (m) => m.type() === 'error' && problems.push(`console: ${m.text()}`));
  await page.goto(dash.url);
  const row = (slot) => page.locator(`[data-app="web"] tr[data-worker="web#${slot}"]`);

  await t.test('the page lists the workers of the daemon, with their pids', async () => {
    await row(1).waitFor({ timeout: 10_000 });
    const { apps } = await lsJson(box);
    const web = apps.find((a) => a.name === 'web');
    for (const w of web.workers) assert.equal(await row(w.slot).getAttribute('data-pid'), String(w.pid));
    assert.equal(new URL(page.url()).hash, '', 'the token is taken out of the address bar');
  });

  await t.test('shed requests (overload:) and an autoscaled app\'s bounds are shown', async () => {
    await page.waitForFunction((sel) => /\(0 shed\)$/.test(document.querySelector(sel)?.textContent ?? ''), '[data-app="web"] tr[data-worker="web#0"] td.rps', { timeout: 10_000 });
    assert.match(await page.locator(`[data-app="${HOSTILE}"] .app-head .note`).textContent(), /^autoscale 1 of 1-1$/);
  });

  await t.test('a host nothing answers is shown down, with why, beside the live one', async () => {
    await page.locator(`[data-host="${deadHost}"] [data-state="down"]`).waitFor({ timeout: 10_000 });
    assert.match(await page.locator(`[data-host="${deadHost}"] h2`).textContent(), /E_NO_DAEMON.*retrying by itself/);
    assert.equal(await page.locator('[data-host="local"] [data-state]').getAttribute('data-state'), 'up');
  });

  await t.test('values change over time (at least once a second)', async () => {
    const uptime = () => row(0).locator('td').nth(3).textContent();
    const first = await uptime();
    await page.waitForFunction(([sel, v]) => document.querySelector(sel)?.children[3].textContent !== v, ['[data-app="web"] tr[data-worker="web#0"]', first], { timeout: 2500 });
  });

  await t.test('a worker killed with SIGKILL shows its restart within 2 s', async () => {
    const pid = Number(await row(0).getAttribute('data-pid'));
    const restarts = Number(await row(0).getAttribute('data-restarts'));
    const killed = Date.now();
    process.kill(pid, 'SIGKILL');
    await page.waitForFunction(/** @param {[string, number, number]} a */ ([sel, oldPid, r]) => {
      const tr = /** @type {HTMLElement} */ (document.querySelector(sel));
      return tr && tr.dataset.pid && tr.dataset.pid !== String(oldPid) && Number(tr.dataset.restarts) === r + 1;
    }, /** @type {[string, number, number]} */ (['[data-app="web"] tr[data-worker="web#0"]', pid, restarts]), { timeout: 2000 });
    assert.ok(Date.now() - killed <= 2000);
    // and the state changes are among the log lines
    await page.waitForFunction(() => /web#0 .*online -> \w+.*SIGKILL/.test(document.getElementById('log-lines').textContent), null, { timeout: 2000 });
  });

  await t.test('a reload from the page completes with 0 failed requests under load', async () => {
    const before = (await lsJson(box)).apps.find((a) => a.name === 'web').workers.map((w) => w.pid);
    const load = startLoad({ port, connections: 4, maxMs: 60_000 });
    await page.locator('[data-app="web"] button[data-action="reload"]').click();
    await page.locator('#confirm-yes').click();
    const entry = page.locator('.actions-log [data-status]').first();
    // the action's entry, once it is there and no longer running (before it is drawn there is none:
    // `undefined !== 'running'` would pass at once)
    await page.waitForFunction(() => {
      const status = /** @type {HTMLElement} */ (document.querySelector('.actions-log [data-status]'))?.dataset.status;
      return status !== undefined && status !== 'running';
    }, null, { timeout: 60_000 });
    const r = await load.stop();
    const text = await entry.textContent();
    assert.equal(await entry.getAttribute('data-status'), 'done', text);
    assert.match(text, /reload web on local: done \(2 ready, last: done\) - done: 2 worker\(s\) replaced in \d+ ms/);
    assert.equal(r.failed, 0, JSON.stringify(r.errors));
    assert.ok(r.ok > 0, 'the load was answered');
    const after = (await lsJson(box)).apps.find((a) => a.name === 'web').workers.map((w) => w.pid);
    assert.ok(after.every((pid) => !before.includes(pid)), 'every worker replaced');
  });

  await t.test('log lines appear, filter, and stay text', async () => {
    await page.waitForFunction(() => document.getElementById('log-lines')?.textContent.includes('tick'), null, { timeout: 5000 });
    await page.fill('#log-filter', 'no such line');
    await page.waitForFunction(() => document.getElementById('log-lines').children.length === 0, null, { timeout: 2000 });
    await page.fill('#log-filter', 'hostile-log');
    await page.waitForFunction(() => document.getElementById('log-lines').children.length > 0, null, { timeout: 2000 });
    assert.match(await page.locator('#log-lines').textContent(), /<b id=hostile-log>bold\?<\/b> tick \d+/);
    assert.equal(await page.locator('#hostile-log').count(), 0, 'a log line became markup');
    // each line with the time it was written
    const shown = await page.locator('#log-lines > div').allTextContents();
    assert.ok(shown.some((x) => /^\d\d:\d\d:\d\d local .* tick \d+$/.test(x)), shown.slice(-3).join(' | '));
  });

  await t.test('a hostile app name renders as text', async () => {
    const names = await page.locator('.app-name').allTextContents();
    assert.ok(names.some((n) => n.includes(HOSTILE)), names.join(' | '));
    assert.equal(await page.locator('img').count(), 0);
    assert.equal(await page.evaluate(() => /** @type {any} */ (window).__xss), undefined);
  });

  await t.test('a deploy in progress on a host is shown beside its name, as text', async () => {
    const client = await box.client();
    try {
      await client.request('deploy-state', { set: { id: 'd1', version: HOSTILE, previous: 'v1', state: 'rolling', step: 'reload' } });
    } finally {
      client.close();
    }
    const shown = page.locator('[data-host="local"] h2 [data-deploy="rolling"]');
    await shown.waitFor({ timeout: 5000 });
    assert.equal(await shown.textContent(), `deploying ${HOSTILE}: reload`);
    assert.equal(await page.locator('img').count(), 0);
  });

  await t.test('settings and worker charts are shown, secrets masked', async () => {
    await page.locator('[data-app="web"] .app-name').click();
    await page.waitForFunction(() => document.querySelector('[data-app="web"] .settings-table')?.textContent.includes('API_SECRET'), null, { timeout: 5000 });
    const text = await page.locator('[data-app="web"] .settings-table').textContent();
    assert.match(text, /API_SECRET=\*+/);
    assert.doesNotMatch(text, /hunter2|instances_spec|perSlot/, 'the settings as written, no internal keys');
    // a table: each setting as written, what the daemon resolved beside it, defaults marked
    const cells = async (key) => page.locator(`[data-app="web"] tr[data-setting="${key}"] td`).allTextContents();
    assert.deepEqual(await cells('kill_timeout'), ['kill_timeout', '5s', '5000 ms']);
    assert.deepEqual(await cells('probation'), ['probation', '250ms default', '250 ms']);
    // the charts have a time axis: uPlot draws it as a second axis element
    assert.ok(await page.locator('[data-app="web"] .charts .u-axis').count() >= 2 * 4, 'x and y axes of the app\'s charts');
    // and each worker's charts, from the dashboard's history
    assert.equal(await page.locator('[data-app="web"] .settings canvas').count(), 2 * 4);
  });

  await t.test('a heap snapshot taken from the page downloads', async () => {
    const download = page.waitForEvent('download', { timeout: 30_000 });
    await row(1).locator('button[data-action="heap"]').click();
    await page.locator('#confirm-yes').click();
    const file = await download;
    assert.match(file.suggestedFilename(), /\.heapsnapshot$/);
    const saved = path.join(box.dir, 'got.heapsnapshot');
    await file.saveAs(saved);
    assert.ok(JSON.parse(fs.readFileSync(saved, 'utf8')).snapshot, 'a heap snapshot');
  });

  await t.test('the --open link (a one-time code, no token) shows the page with its actions, once', async () => {
    const link = fs.readFileSync(opened, 'utf8');
    assert.match(link, /^http:\/\/127\.0\.0\.1:\d+\/#code=[0-9a-f]{32}$/);
    const first = await browser.newPage();
    await first.goto(link);
    await first.locator('[data-app="web"] button[data-action="reload"]').waitFor({ timeout: 10_000 });
    assert.equal(new URL(first.url()).hash, '', 'the code is taken out of the address bar');
    await first.reload(); // the tab keeps the token it was given
    await first.locator('[data-app="web"] button[data-action="reload"]').waitFor({ timeout: 10_000 });
    await first.close();
    const second = await browser.newPage();
    await second.goto(link);
    await second.locator('form.token').waitFor({ timeout: 10_000 });
    assert.equal(await second.locator('[data-app]').count(), 0, 'a spent code shows nothing');
    await second.close();
  });

  await t.test('without the token a page sees nothing and may do nothing; a foreign Origin cannot connect', async () => {
    // A page of this dashboard opened without the link's token (another tab, or another
    // local user): it asks for the token, shows no app and no button, and an action sent by
    // hand over its websocket is refused.
    const bare = await browser.newPage();
    await bare.goto(dash.base);
    await bare.locator('form.token').waitFor({ timeout: 10_000 });
    assert.match(await bare.locator('form.token').textContent(), /needs its token to show anything/);
    assert.equal(await bare.locator('[data-app]').count(), 0);
    assert.equal(await bare.locator('button[data-action]').count(), 0);
    const restarts = (await lsJson(box)).apps.find((a) => a.name === 'web').workers.map((w) => w.restarts);
    const reply = await bare.evaluate(() => new Promise((resolve) => {
      const ws = new WebSocket(`ws://${location.host}/ws`);
      ws.onmessage = (e) => {
        const m = JSON.parse(String(e.data));
        if (m.type === 'hello') ws.send(JSON.stringify({ type: 'action', id: 7, action: 'restart', host: 'local', app: 'web' }));
        if (m.type === 'result') resolve(m);
      };
    }));
    await bare.close();
    assert.equal(reply.ok, false);
    assert.equal(reply.error.code, 'E_AUTH');
    // Another site's page (its Origin) cannot even open the websocket, token or not.
    const status = await new Promise((resolve) => {
      const ws = new WebSocket(`ws://127.0.0.1:${dashPort}/ws`, { origin: 'http://evil.example' });
      ws.on('unexpected-response', (req, res) => resolve(res.statusCode));
      ws.on('open', () => resolve('open'));
      ws.on('error', () => {});
    });
    assert.equal(status, 403);
    assert.deepEqual((await lsJson(box)).apps.find((a) => a.name === 'web').workers.map((w) => w.restarts), restarts, 'nothing restarted');
  });

  assert.deepEqual(problems, []);
});
