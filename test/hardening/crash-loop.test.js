// Issue 7: apps cannot take the daemon down. 6 apps crash-looping at once: the daemon
// keeps answering `super ls`, a healthy app beside them keeps serving, and the built-in
// backoff (lib/master/apps/restart-policy.js) spaces each app's restarts until it is errored.
import test from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { sandbox, freePort, lsJson, watchEvents } from '../helpers/harness.js';
import { probeLs, probeHttp } from '../helpers/probes.js';

const APPS = 6; // 42 worker starts within ~4 s: enough to load the daemon, cheap enough for the suite
const MAX_RESTARTS = 6;
// The built-in backoff before restarts 1..6 of a crash loop (no delay set in the file).
const BACKOFF = [0, 100, 200, 400, 800, 1600];
// Timers fire on the loop's cached clock, so a gap seen in log times can be a little short.
const SLACK_MS = 50;
// Over the first 3 s an app can restart at most 5 times: the 6th waits 0+100+...+1600 = 3.1 s.
const WINDOW_MS = 3000;
const MAX_IN_WINDOW = 5;
const LS_BOUND_MS = 3000;
// Every exit counts as unstable, however slowly a loaded machine boots the worker.
const MIN_UPTIME = '30s';

/** The daemon's state-change log lines of `app`, in order, with their time in ms. */
function stateLines(home, app) {
  return fs.readFileSync(path.join(home, 'daemon.log'), 'utf8').split('\n').filter(Boolean).map((l) => JSON.parse(l))
    .filter((l) => l.app === app && typeof l.state === 'string')
    .map((l) => ({ ...l, ms: Date.parse(l.time) }));
}

test(`${APPS} apps crash-looping: ls answers, a healthy app serves, restarts back off, all end errored`, { timeout: 90000 }, async (t) => {
  const box = await sandbox(t);
  const port = await freePort();
  box.fixture('http-server.js');
  // Listens (ready), then exits (after its 'listening' message is out): the start succeeds
  // and the app loops from there.
  box.write('exit1.js', "require('node:net').createServer().listen(0, '127.0.0.1', () => setTimeout(() => process.exit(1), 100));\n");
  const web = box.write('web.yml', `apps:\n  - name: web\n    script: http-server.js\n    env: { PORT: ${port} }\n`);
  await box.start(web);
  const ev = await watchEvents(box, t);

  const names = Array.from({ length: APPS }, (_, i) => `loop${i}`);
  // (A worker that dies before its first readiness would fail the start: the app would be rolled back.)
  const loops = box.write('loops.yml', `apps:\n${names.map((n) => `  - name: ${n}\n    script: exit1.js\n    max_restarts: ${MAX_RESTARTS}\n    min_uptime: ${MIN_UPTIME}\n`).join('')}`);
  const allErrored = Promise.all(names.map((n) => ev.waitFor((e) => e.app === n && e.state === 'errored', 60000, `${n} errored`)));
  let looping = true;
  allErrored.finally(() => (looping = false)).catch(() => {});
  const start = box.start(loops);

  // While they loop: `super ls` answers in bounded time, and the healthy app never fails.
  const lsProbe = probeLs(box, t, () => looping);
  const httpProbe = probeHttp(port, () => looping);

  await allErrored;
  const [{ daemonMs, cliMs }, { served, failures }] = await Promise.all([lsProbe, httpProbe]);
  await start;

  t.diagnostic(`ls: ${daemonMs.length} calls, daemon answer max ${Math.max(...daemonMs)} ms, super ls max ${Math.max(...cliMs)} ms; web: ${served} requests served`);
  assert.ok(daemonMs.length >= 2, 'ls was probed while the apps looped');
  assert.ok(Math.max(...daemonMs) < LS_BOUND_MS, `the daemon answered every ls within ${LS_BOUND_MS} ms: ${daemonMs}`);
  assert.ok(served > 0, 'the healthy app was probed');
  assert.deepEqual(failures, [], 'the healthy app never failed');

  const ls = await lsJson(box);
  for (const n of names) {
    const app = ls.apps.find((a) => a.name === n);
    assert.deepEqual(app.workers.map((w) => [w.status, w.restarts]), [['errored', MAX_RESTARTS]], n);
  }
  assert.deepEqual(ls.apps.find((a) => a.name === 'web').workers.map((w) => [w.status, w.restarts]), [['online', 0]]);

  // The backoff, from the daemon's own clock: each restart waited at least its delay.
  const inWindow = [];
  const lives = []; // ms from a start to its exit: what one restart costs without backoff
  for (const n of names) {
    const lines = stateLines(box.home, n);
    const starts = lines.filter((l) => l.state === 'starting');
    const exits = lines.filter((l) => l.state === 'exited');
    assert.equal(starts.length, MAX_RESTARTS + 1, `${n}: first start + ${MAX_RESTARTS} restarts`);
    for (let k = 1; k <= MAX_RESTARTS; k++) {
      const gap = starts[k].ms - exits[k - 1].ms;
      assert.ok(gap >= BACKOFF[k - 1] - SLACK_MS, `${n}: restart ${k} came ${gap} ms after exit ${k}, expected >= ${BACKOFF[k - 1]} ms`);
    }
    inWindow.push(starts.slice(1).filter((l) => l.ms - starts[0].ms < WINDOW_MS).length);
    lives.push(...exits.map((e, k) => e.ms - starts[k].ms));
  }
  lives.sort((a, b) => a - b);
  t.diagnostic(`restarts per app within the first ${WINDOW_MS} ms: ${inWindow}; start-to-exit median ${lives[lives.length >> 1]} ms`);
  assert.ok(inWindow.every((c) => c <= MAX_IN_WINDOW), `at most ${MAX_IN_WINDOW} restarts per app in ${WINDOW_MS} ms: ${inWindow}`);
  assert.equal((await box.cli(['ping'])).code, 0, 'the daemon is fine');
});
