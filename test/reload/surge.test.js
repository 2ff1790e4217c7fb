// Surge reload (reload_strategy: surge) on a real daemon: a batch's replacements boot and
// serve probation together, each old worker retires once its replacement is through,
// staggered, without waiting for the batch's slowest boot; a crash on probation rolls
// back per batch without losing capacity; the memory guard (a fake MemAvailable through
// SUPER_MEMINFO, which the daemon reads instead of /proc/meminfo) shrinks the batch, and
// with max_unavailable a slot goes down first. One daemon, one app per subtest.
import test from 'node:test';
import assert from 'node:assert/strict';
import { sandbox, freePort, lsJson, watchEvents, httpGet, alive } from '../helpers/harness.js';
import { deleteAtEnd } from '../helpers/file-daemon.js';
import { ensureDaemon } from '../../lib/ctl/launch-daemon.js';
import { renderError } from '../../lib/ctl/coded-error.js';
import { reloadFailure } from '../../lib/worker-failure.js';
import { lsJson as renderLsJson } from '../../lib/ctl/render-ls.js';
import { startLoad } from '../helpers/load.js';
import { eventually } from '../helpers/wait.js';

const MiB = 1024 ** 2;

const eco = (name, port, { version = 'v1', instances = 2, script = 'versioned.cjs', extra = '', probation = '400ms', env = '' } = {}) => `
apps:
  - name: ${name}
    script: ${script}
    instances: ${instances}
${probation ? `    probation: ${probation}\n` : ''}    listen_timeout: 10s
    reload_strategy: surge
    instance_var: SLOT_FOR_TEST
    env: { PORT: ${port}, VERSION: ${version}${env} }
${extra}`;

test('surge reload', async (t) => {
  const box = await sandbox(t);
  box.fixture('versioned.cjs');
  const meminfo = (bytes) => box.write('meminfo', `MemTotal:       65536000 kB\nMemAvailable:   ${Math.floor(bytes / 1024)} kB\n`);
  // The daemon, launched from this process, reads its memory from this file.
  process.env.SUPER_MEMINFO = meminfo(64 * 1024 * MiB);
  await ensureDaemon(box.home).then((client) => client.close());
  const events = await watchEvents(box, t, ['reload', 'worker']);

  /** Starts app `name` from its own file, deleted at the end of subtest `st`; returns {port, setVersion(v, more)}. */
  async function app(st, name, opts) {
    const port = await freePort();
    const file = box.write(`${name}.yml`, eco(name, port, opts));
    deleteAtEnd(st, box, [name]);
    await box.start(file);
    return { port, setVersion: (version, more = {}) => box.write(`${name}.yml`, eco(name, port, { ...opts, version, ...more })) };
  }
  /**
   * A reload of `name` asked in-process: its outcome for the app, and the error text `super
   * reload` prints for a failure (the CLI's rendering, lib/ctl/coded-error.js). The CLI's own
   * reload output is checked by the subtests that run it.
   */
  async function reloadInProcess(name) {
    const client = await box.client();
    try {
      const outcome = (await client.request('reload', { target: [name] }, { timeout: 0 })).apps[0];
      return { ok: outcome.ok, stderr: outcome.failed ? renderError(reloadFailure(outcome)) : '' };
    } finally {
      client.close();
    }
  }
  const pidsOf = async (name) => (await lsJson(box)).apps.find((a) => a.name === name).workers.map((w) => w.pid);
  const reloadEvents = (name, from) => events.seen.slice(from).filter((e) => e.app === name && e.step);

  await t.test('a batch boots together; each old worker retires once its replacement is through, staggered by retire_interval, not waiting for the slowest boot; no request fails', async (st) => {
    // Slot 2's replacement boots 2 s late: the other old workers retire meanwhile.
    box.write('slow-slot-2.cjs', "setTimeout(() => require('./versioned.cjs'), process.env.SLOT_FOR_TEST === '2' ? 2000 : 0);\n");
    const { port, setVersion } = await app(st, 'wide', { instances: 3, extra: '    retire_interval: 300ms' });
    const load = startLoad({ port, connections: 4, keepAlive: true, maxRequests: 200000, maxMs: 90000 });
    const from = events.seen.length;
    setVersion('v2', { script: 'slow-slot-2.cjs' });
    const r = await box.cli(['reload', 'wide']);
    const res = await load.stop();
    assert.equal(r.code, 0, r.stdout + r.stderr);
    assert.match(r.stdout, /^wide: surge in 1 batch of 3$/m);
    assert.match(r.stdout, /^wide: batch 1\/1: 3 replacements ready in \d+\.\d s$/m);
    assert.match(r.stdout, /^wide: slot 3\/3 ready /m, 'the per-slot lines are kept');
    const steps = reloadEvents('wide', from);
    const at = (step, slot) => steps.findIndex((e) => e.step === step && e.slot === slot);
    const firstReady = steps.findIndex((e) => e.step === 'ready');
    assert.equal(steps.slice(0, firstReady).filter((e) => e.step === 'forked').length, 3, 'every replacement forked before the first passed probation');
    const retired = steps.filter((e) => e.step === 'retired');
    assert.equal(retired.length, 3);
    for (const e of retired) assert.ok(at('ready', e.slot) < steps.indexOf(e), `slot ${e.slot}'s old worker retired after its replacement passed probation`);
    for (const slot of [0, 1]) assert.ok(at('retired', slot) < at('probation', 2), `slot ${slot}'s old worker retired while slot 2 still booted: ${steps.map((e) => `${e.step}#${e.slot}`)}`);
    const asked = retired.map((e) => e.asked_at).sort((a, b) => a - b);
    for (let i = 1; i < asked.length; i++) assert.ok(asked[i] - asked[i - 1] >= 295, `retirements ${asked.map((a) => a - asked[0]).join(', ')} ms apart`);
    assert.equal(res.failed, 0, `failed requests: ${JSON.stringify(res.errors)}`);
    assert.equal(res.non2xx, 0);
    assert.match((await httpGet(port)).body, /^v2 /);
  });

  await t.test('a replacement that crashes on probation rolls back its batch; capacity never falls', async (st) => {
    box.write('crash-on-slot-1.cjs', "if (process.env.SLOT_FOR_TEST === '1') { console.error('slot 1 dies on probation'); process.env.BOOT = 'crash-200ms'; }\nrequire('./versioned.cjs');\n");
    // The crash comes 200 ms after ready: a probation of 2 s holds it even when a loaded host
    // runs the worker's timer late (400 ms let one through on Node 24 in CI).
    const { port, setVersion } = await app(st, 'flaky', { instances: 3, extra: '    max_surge: 2', probation: '2s' });
    const before = await pidsOf('flaky');
    const load = startLoad({ port, connections: 4, keepAlive: true, maxRequests: 200000, maxMs: 90000 });
    const from = events.seen.length;
    setVersion('v2', { script: 'crash-on-slot-1.cjs' });
    let reloading = true;
    const reload = box.cli(['reload', 'flaky']).finally(() => (reloading = false));
    // While it runs, every `ls` answer shows 3 workers online, each alive.
    // (one connection for every sample, the answer shaped as ls --json's: lib/ctl/render-ls.js)
    const sampler = await box.client();
    st.after(() => sampler.close());
    const answers = [];
    for (let i = 0; i < 400 && reloading; i++) {
      answers.push(renderLsJson(await sampler.request('ls')).apps.find((a) => a.name === 'flaky').workers);
      await new Promise((r) => setTimeout(r, 50)); // ls is answered in-process in ms: sample the whole reload
    }
    const r = await reload;
    const res = await load.stop();
    assert.ok(answers.length > 0);
    for (const workers of answers) assert.deepEqual(workers.map((w) => w.status), ['online', 'online', 'online']);
    assert.deepEqual(events.seen.slice(from).filter((e) => e.app === 'flaky' && e.state), [], 'no slot left online during the reload');

    assert.equal(r.code, 1, r.stdout + r.stderr);
    assert.match(r.stdout, /^flaky: surge in 2 batches of 2$/m);
    assert.match(r.stdout, /^flaky: batch 1\/2: 1 replacement ready in /m);
    assert.doesNotMatch(r.stdout, /batch 2\/2/);
    assert.match(r.stderr, /^super: E_RELOAD_FAILED: flaky#1 exited with code 4 during probation/m);
    assert.match(r.stderr, /slots 1, 2 still run the old version; slot 0 already runs the new one/);
    assert.match(r.stderr, /^ {2}flaky \| slot 1 dies on probation$/m);
    const after = await pidsOf('flaky');
    assert.notEqual(after[0], before[0]);
    assert.deepEqual(after.slice(1), before.slice(1), 'slots not switched keep their old workers');
    assert.equal(alive(before[0]), false, 'the switched slot retired its old worker');
    assert.equal(reloadEvents('flaky', from).filter((e) => e.step === 'forked').length, 2, 'the second batch never started');
    assert.equal(res.failed, 0, `failed requests: ${JSON.stringify(res.errors)}`);
  });

  await t.test('the memory guard shrinks the batch to what MemAvailable holds, and says so', async (st) => {
    const { setVersion } = await app(st, 'tight', { instances: 3 });
    const rss = Math.max(...(await lsJson(box)).apps.find((a) => a.name === 'tight').workers.map((w) => w.memory));
    assert.ok(rss > 0, 'the workers were measured');
    meminfo(64 * MiB + 2.4 * 1.25 * rss); // room for 2 replacements of this size
    const from = events.seen.length;
    setVersion('v2');
    const r = await box.cli(['reload', 'tight']);
    assert.equal(r.code, 0, r.stdout + r.stderr);
    const shrunk = /^tight: memory guard: batch shrunk from 3 to (\d) replacements? beside the old workers \(available \d+ MiB, \d+ MiB per worker\)$/m.exec(r.stdout);
    assert.ok(shrunk, r.stdout);
    const size = Number(shrunk[1]);
    assert.ok(size >= 1 && size <= 2, `shrunk to ${size}`);
    const batches = Math.ceil(3 / size);
    assert.match(r.stdout, new RegExp(`^tight: surge in ${batches} batches of ${size}$`, 'm'));
    assert.match(r.stdout, new RegExp(`^tight: batch ${batches}/${batches}: `, 'm'));
    // Never more than `size` replacements beside the old workers: a fork waits for retirements.
    let beside = 0;
    let most = 0;
    for (const e of reloadEvents('tight', from)) {
      if (e.step === 'forked') most = Math.max(most, ++beside);
      if (e.step === 'retired') beside--;
    }
    assert.equal(most, size);
  });

  await t.test('max_unavailable: 1 lets a slot go down first when memory holds no replacement', async (st) => {
    const { port, setVersion } = await app(st, 'down', { instances: 2, extra: '    max_unavailable: 1' });
    const before = await pidsOf('down');
    meminfo(16 * MiB); // below the guard's reserve: no replacement fits beside the old workers
    const from = events.seen.length;
    setVersion('v2', { extra: '    max_unavailable: 1' });
    const r = await box.cli(['reload', 'down']);
    assert.equal(r.code, 0, r.stdout + r.stderr);
    assert.match(r.stdout, /^down: surge in 2 batches of 1$/m);
    assert.match(r.stdout, /^down: memory guard: batch shrunk from 2 to 0 replacements beside the old workers \(.*\); 1 slot per batch stops first \(max_unavailable\)$/m);
    // Slot 0: its old worker stopped before the new one was forked; slot 1 served meanwhile.
    const slot0 = events.seen.slice(from).filter((e) => e.app === 'down' && e.slot === 0);
    const stopped = slot0.findIndex((e) => e.state === 'stopped' && e.pid === before[0]);
    const forked = slot0.findIndex((e) => e.step === 'forked');
    assert.ok(stopped >= 0 && forked > stopped, JSON.stringify(slot0.map((e) => e.step ?? e.state)));
    assert.equal(slot0[forked].oldPid, before[0]);
    const after = await pidsOf('down');
    assert.ok(after.every((p, i) => p && p !== before[i]), 'both slots run new workers');
    assert.match((await httpGet(port)).body, /^v2 /);

    // A down-first replacement that fails: its slot starts the old version again.
    setVersion('v3', { script: 'crash-on-slot-1.cjs', extra: '    max_unavailable: 1' });
    const failed = await reloadInProcess('down');
    assert.equal(failed.ok, false);
    assert.match(failed.stderr, /^super: E_RELOAD_FAILED: down#1 exited with code 4 during probation/m);
    assert.match(failed.stderr, /slot 1 still runs the old version; slot 0 already runs the new one/);
    const ls = (await lsJson(box)).apps.find((a) => a.name === 'down');
    assert.deepEqual(ls.workers.map((w) => w.status), ['online', 'online']);
    // Fresh connections until both versions answered (bounded): under reuseport (auto's pick
    // on Node 22+) the kernel's hash picks the worker, so a fixed few could all reach one.
    const seen = new Set();
    await eventually(async () => seen.add((await httpGet(port)).body.split(' ')[0]).size >= 2, { timeout: 20000, what: 'answers from both slots', last: () => [...seen].join(', ') });
    assert.deepEqual([...seen].sort(), ['v2', 'v3'], 'slot 1 serves v2 again');
    meminfo(64 * 1024 * MiB); // plenty again: with none, a new app's start is refused
  });

  await t.test('the default probation catches a version that crashes right after it listens', async (st) => {
    box.write('crash-after-listen.cjs', `// Listens, then fails within a few turns, as a broken version does (CRASH: throw | reject | refused).
const http = require('node:http');
const net = require('node:net');
http.createServer((req, res) => res.end(process.env.VERSION + ' ' + process.pid + '\\n')).listen(Number(process.env.PORT), '127.0.0.1', () => {
  const how = process.env.CRASH;
  if (how === 'throw') setImmediate(() => { throw new Error('broken after listen'); });
  if (how === 'reject') Promise.resolve().then(() => { throw new Error('init rejected'); });
  if (how === 'refused') net.connect(1, '127.0.0.1').on('error', (err) => { throw err; });
});
`);
    const opts = { instances: 1, probation: null, script: 'crash-after-listen.cjs' };
    const { port, setVersion } = await app(st, 'brittle', opts);
    for (const crash of ['throw', 'reject', 'refused']) {
      setVersion('v2', { env: `, CRASH: ${crash}` });
      const r = await reloadInProcess('brittle');
      assert.equal(r.ok, false, crash);
      assert.match(r.stderr, /^super: E_RELOAD_FAILED: brittle#0 exited with code 1 during probation \(\d+ ms after ready\)/m, crash);
      assert.match((await httpGet(port)).body, /^v1 /, `${crash}: the old worker still serves`);
    }
  });
});
