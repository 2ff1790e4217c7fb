// Rolling reload under load: nothing dropped, in-flight requests finish, the file is the
// source of truth, one reload at a time, and the same graceful retirement for scale down.
import test from 'node:test';
import assert from 'node:assert/strict';
import http from 'node:http';
import { sandbox, freePort, httpGet, lsJson, watchEvents } from '../helpers/harness.js';
import { startLoad } from '../helpers/load.js';

const eco = (port, { version = 'v1', instances = 2, extra = '', env = '', probation = '100ms' } = {}) => `
apps:
  - name: web
    script: versioned.cjs
    instances: ${instances}
    probation: ${probation}
    env: { PORT: ${port}, VERSION: ${version}${env} }
${extra}`;

async function setup(t, opts) {
  const box = await sandbox(t);
  const port = await freePort();
  box.fixture('versioned.cjs');
  const file = box.write('eco.yml', eco(port, opts));
  await box.start(file);
  return { box, port, file, setVersion: (version, more) => box.write('eco.yml', eco(port, { ...opts, version, ...more })) };
}

/** Bodies seen by n fresh requests, as "version" strings. */
async function versions(port, n = 6) {
  const seen = new Set();
  for (let i = 0; i < n; i++) seen.add((await httpGet(port)).body.split(' ')[0]);
  return [...seen].sort();
}

/** GETs `path` and resolves with {status, body: Promise<string>} once the headers are in. */
function inFlight(port, path) {
  return new Promise((resolve, reject) => {
    http.get({ host: '127.0.0.1', port, path, agent: false }, (res) => {
      res.setEncoding('utf8');
      const body = new Promise((done, fail) => {
        let text = '';
        res.on('data', (d) => (text += d));
        res.on('end', () => done(text));
        res.on('close', () => res.complete || fail(new Error(`the response was cut after ${JSON.stringify(text)}`)));
      });
      resolve({ status: res.statusCode, body });
    }).on('error', reject);
  });
}

for (const keepAlive of [true, false]) {
  test(`reloads under ${keepAlive ? 'keep-alive' : 'Connection: close'} load drop no request`, async (t) => {
    const { box, port, setVersion } = await setup(t);
    const load = startLoad({ port, connections: 8, keepAlive, maxRequests: 200000, maxMs: 60000 });
    t.after(() => load.stop());
    for (const v of ['v2', 'v3']) {
      setVersion(v);
      const r = await box.cli(['reload', 'web']);
      assert.equal(r.code, 0, r.stderr);
      assert.match(r.stdout, /web: reloading 2 workers \(config changed: env\)/);
      assert.match(r.stdout, /web: slot 1\/2 ready \(\d+ ms; web#0, pid \d+\)\nweb: slot 2\/2 ready \(\d+ ms; web#1, pid \d+\)/);
      assert.match(r.stdout, /web: reloaded 2 workers in \d+\.\d\d s/);
    }
    const res = await load.stop();
    assert.ok(res.sent > 500, `the load ran (${res.sent} requests)`);
    assert.equal(res.failed, 0, `failed requests: ${JSON.stringify(res.errors)}`);
    assert.equal(res.non2xx, 0, JSON.stringify(res.statuses));
    assert.deepEqual(await versions(port), ['v3']);
  });
}

test('a request in flight for 2 s during a reload completes', async (t) => {
  const { box, port, setVersion } = await setup(t);
  // &flush: the headers come at once, so the reload starts once both requests are in a worker.
  const slow = await Promise.all([inFlight(port, '/slow?ms=2000&flush'), inFlight(port, '/slow?ms=2000&flush')]);
  setVersion('v2');
  const r = await box.cli(['reload', 'web']);
  assert.equal(r.code, 0, r.stderr);
  for (const res of slow) {
    assert.equal(res.status, 200);
    assert.match(await res.body, /^v1 /);
  }
  assert.deepEqual(await versions(port), ['v2']);
});

test('the file is re-read; --keep-config reloads the running config; an invalid file changes nothing', async (t) => {
  const { box, port, file, setVersion } = await setup(t);
  const before = (await lsJson(box)).apps[0].workers.map((w) => w.pid);
  box.write('eco.yml', 'apps:\n  - name: web\n    script: versioned.cjs\n    instancez: 2\n');
  const bad = await box.cli(['reload', 'web']);
  assert.equal(bad.code, 2);
  assert.match(bad.stderr, /E_CONFIG/);
  assert.ok(bad.stderr.includes(`${file}:4:5: apps[0].instancez: unknown key`), `the app's own file was re-read:\n${bad.stderr}`);
  assert.deepEqual((await lsJson(box)).apps[0].workers.map((w) => w.pid), before, 'the refused reload replaced nothing');

  const kept = await box.cli(['reload', 'web', '--keep-config']);
  assert.equal(kept.code, 0, kept.stderr);
  assert.match(kept.stdout, /running config \(--keep-config\)/);
  const after = (await lsJson(box)).apps[0].workers.map((w) => w.pid);
  assert.equal(after.filter((p) => before.includes(p)).length, 0, 'every worker was replaced');
  assert.deepEqual(await versions(port), ['v1']);

  setVersion('v2', { instances: 3 });
  const grown = await box.cli(['reload', 'web']);
  assert.equal(grown.code, 0, grown.stderr);
  assert.match(grown.stdout, /config changed: .*instances/);
  assert.match(grown.stdout, /web: now 3 workers, as its file says/);
  const ls = await lsJson(box);
  assert.equal(ls.apps[0].workers.length, 3);
  assert.deepEqual(await versions(port, 9), ['v2']);
});

test('a second reload of the same app while one runs is refused', async (t) => {
  const { box, setVersion } = await setup(t);
  setVersion('v2', { probation: '1500ms' });
  const client = await box.client();
  t.after(() => client.close());
  let begun;
  const underway = new Promise((resolve) => (begun = resolve));
  const first = client.request('reload', { target: 'web' }, { timeout: 0, onProgress: (p) => p.step === 'begin' && begun() });
  await underway;
  const second = await box.cli(['reload', 'web']);
  assert.equal(second.code, 1);
  assert.match(second.stderr, /^super: E_BUSY: web is busy \(reload\)/m);
  const done = await first;
  assert.equal(done.apps[0].ok, true);
  assert.deepEqual(done.apps[0].replaced, [0, 1]);
});

test('scale down and SIGHUP use the same graceful path under keep-alive load', async (t) => {
  const { box, port, setVersion } = await setup(t, { instances: 3 });
  const load = startLoad({ port, connections: 8, keepAlive: true, maxRequests: 200000, maxMs: 60000 });
  t.after(() => load.stop());
  const down = await box.cli(['scale', 'web', '1']);
  assert.equal(down.code, 0, down.stderr);
  setVersion('v2', { instances: 1 });
  const events = await watchEvents(box, t, ['reload']);
  process.kill(box.daemonPid(), 'SIGHUP');
  const done = await events.waitFor((e) => e.app === 'web' && e.step === 'done', 30000, 'the SIGHUP reload');
  assert.equal(done.ok, true);
  const res = await load.stop();
  assert.equal(res.failed, 0, `failed requests: ${JSON.stringify(res.errors)}`);
  assert.equal(res.non2xx, 0);
  assert.deepEqual(await versions(port), ['v2']);
});

test('reload all reloads every app, one after another', async (t) => {
  const box = await sandbox(t);
  const [p1, p2] = [await freePort(), await freePort()];
  box.fixture('versioned.cjs');
  const two = (v) => `
apps:
  - name: a
    script: versioned.cjs
    probation: 100ms
    env: { PORT: ${p1}, VERSION: ${v} }
  - name: b
    script: versioned.cjs
    probation: 100ms
    env: { PORT: ${p2}, VERSION: ${v} }
`;
  const file = box.write('eco.yml', two('v1'));
  await box.start(file);
  box.write('eco.yml', two('v2'));
  const r = await box.cli(['reload', 'all']);
  assert.equal(r.code, 0, r.stderr);
  // b begins only after a is done
  assert.match(r.stdout, /^a: reloading 1 worker[\s\S]*^a: reloaded 1 worker[\s\S]*^b: reloading 1 worker[\s\S]*^b: reloaded[\s\S]*^done in /m);
  assert.deepEqual([(await httpGet(p1)).body.split(' ')[0], (await httpGet(p2)).body.split(' ')[0]], ['v2', 'v2']);
});

test('reload_parallel: at most that many slots boot at once; probation overlaps the next boot', async (t) => {
  const { box, setVersion } = await setup(t, { instances: 4, extra: '    reload_parallel: 2' });
  const events = await watchEvents(box, t, ['reload']);
  setVersion('v2');
  const r = await box.cli(['reload', 'web']);
  assert.equal(r.code, 0, r.stderr);
  await events.waitFor((e) => e.step === 'done', 30000, 'the end of the reload');
  let inFlight = 0;
  let most = 0;
  for (const e of events.seen.filter((x) => x.app === 'web')) {
    if (e.step === 'forked') most = Math.max(most, ++inFlight);
    if (e.step === 'probation') inFlight--;
  }
  assert.equal(most, 2, `at most 2 replacements booting at a time: ${JSON.stringify(events.seen.map((e) => `${e.step}#${e.slot}`))}`);
  const order = events.seen.filter((x) => x.app === 'web').map((e) => `${e.step}#${e.slot}`);
  assert.ok(order.indexOf('forked#2') < order.findIndex((e) => e.startsWith('ready#')), `slot 2 boots during the first probation: ${order}`);
  assert.equal(events.seen.filter((e) => e.step === 'ready').length, 4);
});
