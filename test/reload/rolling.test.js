// Rolling reload under load: nothing dropped, in-flight requests finish, the file is the
// source of truth, one reload at a time, and the same graceful retirement for scale down.
// One daemon for the file: each test adds its own app (own name, port and file) and
// deletes it at its end.
import test from 'node:test';
import assert from 'node:assert/strict';
import http from 'node:http';
import { freePort, httpGet, lsJson, watchEvents } from '../helpers/harness.js';
import { fileSandbox, deleteAtEnd } from '../helpers/file-daemon.js';
import { startLoad, answeredBy } from '../helpers/load.js';

const eco = (name, port, { version = 'v1', instances = 2, extra = '', env = '', probation = '100ms' } = {}) => `
apps:
  - name: ${name}
    script: versioned.cjs
    instances: ${instances}
    probation: ${probation}
    env: { PORT: ${port}, VERSION: ${version}${env} }
${extra}`;

const box = await fileSandbox();
box.fixture('versioned.cjs');

/** Starts app `name` from its own file, deleted when `t` ends. */
async function setup(t, name, opts) {
  const port = await freePort();
  const file = box.write(`${name}.yml`, eco(name, port, opts));
  deleteAtEnd(t, box, [name]);
  await box.start(file);
  return { port, file, setVersion: (version, more) => box.write(`${name}.yml`, eco(name, port, { ...opts, version, ...more })) };
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

// Two reloads in a row under keep-alive load (the second replaces workers the first
// started); one under Connection: close, where every request is a new connection. The load
// runs across each reload: the workers it replaces answered it before, their replacements
// after (the pids that answered, not a count of requests: that is the machine's speed).
for (const [keepAlive, rounds] of /** @type {[boolean, string[]][]} */ ([[true, ['v2', 'v3']], [false, ['v2']]])) {
  test(`reloads under ${keepAlive ? 'keep-alive' : 'Connection: close'} load drop no request`, async (t) => {
    const name = keepAlive ? 'ka' : 'close';
    const { port, setVersion } = await setup(t, name);
    const answers = answeredBy();
    // 16 connections: under reuseport (auto's pick on Node 22+) the kernel's hash puts them all
    // on one worker's socket once in 2^15, where 8 would once in 128 (and the test waits for both).
    const load = startLoad({ port, connections: 16, keepAlive, maxRequests: 200000, maxMs: 60000, observer: answers.observer });
    t.after(() => load.stop());
    const workerPids = async () => (await lsJson(box)).apps.find((a) => a.name === name).workers.map((w) => w.pid);
    let pids = await workerPids();
    await answers.reached(pids, 'the workers before the reload');
    for (const v of rounds) {
      setVersion(v);
      const r = await box.cli(['reload', name]);
      assert.equal(r.code, 0, r.stderr);
      assert.match(r.stdout, new RegExp(`${name}: reloading 2 workers \\(config changed: env\\)`));
      assert.match(r.stdout, new RegExp(`${name}: slot 1/2 ready \\(\\d+ ms; ${name}#0, pid \\d+\\)\\n${name}: slot 2/2 ready \\(\\d+ ms; ${name}#1, pid \\d+\\)`));
      assert.match(r.stdout, new RegExp(`${name}: reloaded 2 workers in \\d+\\.\\d\\d s`));
      const next = await workerPids();
      assert.deepEqual(next.filter((p) => pids.includes(p)), [], `${v}: every worker was replaced`);
      await answers.reached(next, `their replacements, after the reload to ${v}`);
      pids = next;
    }
    const res = await load.stop();
    t.diagnostic(`${res.sent} requests; answers by pid ${JSON.stringify(Object.fromEntries(answers.pids))}`);
    assert.equal(res.failed, 0, `failed requests: ${JSON.stringify(res.errors)}`);
    assert.equal(res.non2xx, 0, JSON.stringify(res.statuses));
    assert.deepEqual(await versions(port), [rounds.at(-1)]);
  });
}

test('a request in flight for 2 s during a reload completes', async (t) => {
  const { port, setVersion } = await setup(t, 'slow', { instances: 1 });
  // &flush: the headers come at once, so the reload starts once both requests are in the worker.
  const slow = await Promise.all([inFlight(port, '/slow?ms=2000&flush'), inFlight(port, '/slow?ms=2000&flush')]);
  setVersion('v2');
  const r = await box.cli(['reload', 'slow']);
  assert.equal(r.code, 0, r.stderr);
  for (const res of slow) {
    assert.equal(res.status, 200);
    assert.match(await res.body, /^v1 /);
  }
  assert.deepEqual(await versions(port), ['v2']);
});

test('the file is re-read; --keep-config reloads the running config; an invalid file changes nothing', async (t) => {
  const { port, file, setVersion } = await setup(t, 'reread', { instances: 1 });
  const workerPids = async () => (await lsJson(box)).apps.find((a) => a.name === 'reread').workers.map((w) => w.pid);
  const before = await workerPids();
  box.write('reread.yml', 'apps:\n  - name: reread\n    script: versioned.cjs\n    instancez: 2\n');
  const bad = await box.cli(['reload', 'reread']);
  assert.equal(bad.code, 2);
  assert.match(bad.stderr, /E_CONFIG/);
  assert.ok(bad.stderr.includes(`${file}:4:5: apps[0].instancez: unknown key`), `the app's own file was re-read:\n${bad.stderr}`);
  assert.deepEqual(await workerPids(), before, 'the refused reload replaced nothing');

  const kept = await box.cli(['reload', 'reread', '--keep-config']);
  assert.equal(kept.code, 0, kept.stderr);
  assert.match(kept.stdout, /running config \(--keep-config\)/);
  const after = await workerPids();
  assert.equal(after.filter((p) => before.includes(p)).length, 0, 'every worker was replaced');
  assert.deepEqual(await versions(port), ['v1']);

  setVersion('v2', { instances: 2 });
  const grown = await box.cli(['reload', 'reread']);
  assert.equal(grown.code, 0, grown.stderr);
  assert.match(grown.stdout, /config changed: .*instances/);
  assert.match(grown.stdout, /reread: now 2 workers, as its file says/);
  assert.equal((await workerPids()).length, 2);
  assert.deepEqual(await versions(port), ['v2']);
});

test('a second reload of the same app while one runs is refused', async (t) => {
  const { port, setVersion } = await setup(t, 'busy', { instances: 1 });
  // The replacement never becomes ready by itself: the first reload runs until the test
  // ends it (however slowly the second `super reload` starts on a busy machine).
  setVersion('v2', { extra: '    listen_timeout: 60s', env: ', BOOT: never-listen' });
  const client = await box.client();
  t.after(() => client.close());
  const events = await watchEvents(box, t, ['reload']);
  const first = client.request('reload', { target: 'busy' }, { timeout: 0 });
  const { pid } = await events.waitFor((e) => e.app === 'busy' && e.step === 'forked', 30000, 'the replacement forked');
  const second = await box.cli(['reload', 'busy']);
  assert.equal(second.code, 1);
  assert.match(second.stderr, /^super: E_BUSY: busy is busy \(reload\)/m);
  process.kill(pid, 'SIGKILL');
  const done = await first;
  assert.equal(done.apps[0].ok, false, 'the first reload ends when its replacement dies');
  assert.deepEqual(await versions(port, 3), ['v1'], 'the old worker serves on');
});

test('scale down and SIGHUP use the same graceful path under keep-alive load', async (t) => {
  const { port, setVersion } = await setup(t, 'down', { instances: 2 });
  const load = startLoad({ port, connections: 8, keepAlive: true, maxRequests: 200000, maxMs: 60000 });
  t.after(() => load.stop());
  const client = await box.client();
  t.after(() => client.close());
  const down = await client.request('scale', { app: 'down', count: '1' }, { timeout: 0 });
  assert.deepEqual([down.from, down.to, down.failed], [2, 1, []]);
  setVersion('v2', { instances: 1 });
  const events = await watchEvents(box, t, ['reload']);
  process.kill(box.daemonPid(), 'SIGHUP');
  const done = await events.waitFor((e) => e.app === 'down' && e.step === 'done', 30000, 'the SIGHUP reload');
  assert.equal(done.ok, true);
  const res = await load.stop();
  assert.equal(res.failed, 0, `failed requests: ${JSON.stringify(res.errors)}`);
  assert.equal(res.non2xx, 0);
  assert.deepEqual(await versions(port), ['v2']);
});

test('reload all reloads every app, one after another', async (t) => {
  const [p1, p2] = [await freePort(), await freePort()];
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
  const file = box.write('two.yml', two('v1'));
  deleteAtEnd(t, box, ['a', 'b']);
  await box.start(file);
  box.write('two.yml', two('v2'));
  const r = await box.cli(['reload', 'all']);
  assert.equal(r.code, 0, r.stderr);
  // b begins only after a is done
  assert.match(r.stdout, /^a: reloading 1 worker[\s\S]*^a: reloaded 1 worker[\s\S]*^b: reloading 1 worker[\s\S]*^b: reloaded[\s\S]*^done in /m);
  assert.deepEqual([(await httpGet(p1)).body.split(' ')[0], (await httpGet(p2)).body.split(' ')[0]], ['v2', 'v2']);
});

// 3 slots, 2 at a time: without the limit all 3 would boot at once.
test('reload_parallel: at most that many slots boot at once; probation overlaps the next boot', async (t) => {
  const { setVersion } = await setup(t, 'par', { instances: 3, extra: '    reload_parallel: 2' });
  const events = await watchEvents(box, t, ['reload']);
  setVersion('v2');
  const client = await box.client();
  t.after(() => client.close());
  const r = await client.request('reload', { target: ['par'] }, { timeout: 0 });
  assert.equal(r.apps[0].ok, true, JSON.stringify(r));
  await events.waitFor((e) => e.app === 'par' && e.step === 'done', 30000, 'the end of the reload');
  let inFlight = 0;
  let most = 0;
  for (const e of events.seen.filter((x) => x.app === 'par')) {
    if (e.step === 'forked') most = Math.max(most, ++inFlight);
    if (e.step === 'probation') inFlight--;
  }
  assert.equal(most, 2, `at most 2 replacements booting at a time: ${JSON.stringify(events.seen.map((e) => `${e.step}#${e.slot}`))}`);
  const order = events.seen.filter((x) => x.app === 'par').map((e) => `${e.step}#${e.slot}`);
  assert.ok(order.indexOf('forked#2') < order.findIndex((e) => e.startsWith('ready#')), `slot 2 boots during the first probation: ${order}`);
  assert.equal(events.seen.filter((e) => e.app === 'par' && e.step === 'ready').length, 3);
});
