// Issue 5: cpu_affinity pins every thread of a worker, including threads started after boot
// (libuv's thread pool, worker_threads), through taskset in the exec chain; slot i keeps its
// CPUs across crash restarts and scale-ups.
import test from 'node:test';
import assert from 'node:assert/strict';
import { sandbox, freePort, httpGet, lsJson, watchEvents, describeJson } from '../helpers/harness.js';
import { ALLOWED, ALL, masksOf } from '../helpers/cpus.js';
import { fileSandbox, deleteAtEnd } from '../helpers/file-daemon.js';

const skip = ALLOWED.length < 2 ? 'needs at least 2 CPUs' : false;
// libuv starts this many pool threads at its first use (the web app's env sets it).
const POOL = 3;

// One daemon for the tests that pin apps of their own; the daemon.cpu_affinity test pins
// its daemon and has one of its own.
const fileBox = await fileSandbox();

/** GETs `path` on fresh connections until `count` workers (round-robin) answered; their pids. */
async function fromEach(port, path, count, re) {
  const pids = new Set();
  for (let i = 0; i < 10 * count && pids.size < count; i++) {
    const { body } = await httpGet(port, path);
    const m = re.exec(body);
    assert.ok(m, `${path}: ${body}`);
    pids.add(Number(m[1]));
  }
  return pids;
}

test('spread, a list and a fork-mode app: every thread has its slot\'s mask, also the thread pool and a worker_thread started later; a crash replacement keeps it', { skip }, async (t) => {
  const box = fileBox;
  deleteAtEnd(t, box, ['web', 'free', 'job']);
  const [p1, p2] = [await freePort(), await freePort()];
  box.fixture('threads.js');
  box.fixture('threads.cjs'); // CommonJS: no pool thread before GET /pool
  box.fixture('script.sh');
  const [a, b] = ALLOWED;
  const last = ALLOWED.at(-1);
  const eco = box.write('eco.yml', `
apps:
  - name: web
    script: threads.cjs
    instances: 2
    cpu_affinity: spread
    env: { PORT: ${p1}, UV_THREADPOOL_SIZE: ${POOL} }
  - name: free
    script: threads.js
    env: { PORT: ${p2} }
  - name: job
    script: script.sh
    cpu_affinity: [${last}]
`);
  const r = await box.cli(['start', eco]);
  assert.equal(r.code, 0, r.stderr);
  assert.doesNotMatch(r.stderr, /warning/, 'two workers on two or more CPUs: no warning');

  const ls = await lsJson(box);
  const web = ls.apps.find((x) => x.name === 'web').workers;
  const free = ls.apps.find((x) => x.name === 'free').workers;
  const job = ls.apps.find((x) => x.name === 'job').workers;
  assert.deepEqual(web.map((w) => [w.slot, w.cpus, w.pinned]), [[0, String(a), true], [1, String(b), true]]);
  assert.deepEqual(free.map((w) => [w.cpus, w.pinned]), [[ALL, false]]);
  assert.deepEqual(job.map((w) => [w.cpus, w.pinned]), [[String(last), true]]);

  // Every thread Node has at boot (main, V8 platform workers...; for an ES module app,
  // like free, also libuv's pool, which the ESM loader uses).
  const boot = web.map((w) => masksOf(w.pid));
  assert.ok(boot[0].threads > 1, `a Node worker has several threads (${boot[0].threads})`);
  assert.deepEqual(boot.map((x) => x.masks), [[String(a)], [String(b)]]);
  assert.deepEqual(masksOf(free[0].pid).masks, [ALL], 'an unpinned worker keeps every CPU');
  assert.deepEqual(masksOf(job[0].pid).masks, [String(last)], 'fork mode (a shell script) is pinned too');

  // libuv's thread pool, started now (its first use), long after boot: each pool thread has the mask.
  assert.equal((await fromEach(p1, '/pool', 2, /pid=(\d+) pool=used/)).size, 2, 'both workers used their thread pool');
  const pooled = web.map((w, i) => {
    const now = masksOf(w.pid);
    assert.ok(now.threads >= boot[i].threads + POOL, `slot ${i}: the ${POOL} pool threads were added (${boot[i].threads} -> ${now.threads})`);
    assert.deepEqual(now.masks, [String(ALLOWED[i])], `slot ${i}: every thread, the pool's included`);
    return now;
  });

  // A worker_thread started now, long after boot, inherits the mask.
  assert.equal((await fromEach(p1, '/thread', 2, /pid=(\d+) thread=\d+/)).size, 2, 'both workers started a thread');
  web.forEach((w, i) => {
    const now = masksOf(w.pid);
    assert.ok(now.threads > pooled[i].threads, `slot ${i}: a thread was added (${pooled[i].threads} -> ${now.threads})`);
    assert.deepEqual(now.masks, [String(ALLOWED[i])], `slot ${i}: every thread, the new one included`);
  });

  const d = await box.cli(['describe', 'web']);
  assert.match(d.stdout, new RegExp(`#0 CPUs: ${a} \\(pinned\\)`));
  assert.match(d.stdout, new RegExp(`#1 CPUs: ${b} \\(pinned\\)`));
  const dj = await describeJson(box, 'web');
  assert.deepEqual(dj.workers.map((w) => w.cpus), [String(a), String(b)]);

  // kill -9 of slot 1: the replacement is slot 1 again, on slot 1's CPU.
  const ev = await watchEvents(box, t);
  process.kill(web[1].pid, 'SIGKILL');
  const back = await ev.waitFor((e) => e.app === 'web' && e.slot === 1 && e.state === 'online', 15000, 'web#1 online again');
  assert.notEqual(back.pid, web[1].pid);
  assert.deepEqual(masksOf(back.pid).masks, [String(b)]);
  const after = (await lsJson(box)).apps.find((x) => x.name === 'web').workers;
  assert.deepEqual(after.map((w) => [w.cpus, w.restarts]), [[String(a), 0], [String(b), 1]]);
  assert.deepEqual(masksOf(after[0].pid).masks, [String(a)], 'slot 0 untouched');
});

test('a per-slot map pins the slots it names and leaves the others on every CPU', { skip }, async (t) => {
  const box = fileBox;
  deleteAtEnd(t, box, ['map']);
  const port = await freePort();
  box.fixture('threads.js');
  const b = ALLOWED[1];
  const eco = box.write('map.yml', `apps:\n  - name: map\n    script: threads.js\n    instances: 2\n    cpu_affinity:\n      1: "${b}"\n    env: { PORT: ${port} }\n`);
  await box.start(eco);
  const web = (await lsJson(box)).apps.find((x) => x.name === 'map').workers;
  assert.deepEqual(web.map((w) => [w.cpus, w.pinned]), [[ALL, false], [String(b), true]]);
  assert.deepEqual(masksOf(web[0].pid).masks, [ALL]);
  assert.deepEqual(masksOf(web[1].pid).masks, [String(b)]);
});

test('a per-slot map naming an instance the app does not run yet: start warns, and a scale-up pins it', { skip }, async (t) => {
  const box = fileBox;
  deleteAtEnd(t, box, ['later']);
  const port = await freePort();
  box.fixture('threads.js');
  const [a, b] = ALLOWED;
  const eco = box.write('later.yml', `apps:\n  - name: later\n    script: threads.js\n    cpu_affinity: { 0: "${a}", 1: "${b}" }\n    env: { PORT: ${port} }\n`);
  const r = await box.cli(['start', eco]);
  assert.equal(r.code, 0, r.stderr);
  assert.match(r.stderr, /^super: warning: later: cpu_affinity maps instance 1, but later runs 1 instance \(0\); that entry pins nothing until `super scale later 2` adds it; instance numbers count from 0$/m);
  const one = (await lsJson(box)).apps.find((x) => x.name === 'later').workers;
  assert.deepEqual(one.map((w) => [w.slot, w.cpus, w.pinned]), [[0, String(a), true]]);

  const sc = await box.cli(['scale', 'later', '2']);
  assert.equal(sc.code, 0, sc.stderr);
  assert.doesNotMatch(sc.stderr, /warning/);
  const two = (await lsJson(box)).apps.find((x) => x.name === 'later').workers;
  assert.deepEqual(two.map((w) => [w.slot, w.cpus, w.pinned]), [[0, String(a), true], [1, String(b), true]], 'the new instance got the CPUs its entry names');
  assert.equal(two[0].pid, one[0].pid);
  assert.deepEqual(two.map((w) => masksOf(w.pid).masks), [[String(a)], [String(b)]]);
});

test('daemon.cpu_affinity pins every thread of the daemon, not the apps; spread over too few CPUs warns', { skip }, async (t) => {
  const box = await sandbox(t);
  const [p1, p2] = [await freePort(), await freePort()];
  box.fixture('threads.js');
  const n = ALLOWED.length + 1;
  const eco = box.write('eco.yml', `
daemon:
  cpu_affinity: ${ALLOWED[0]}
apps:
  - name: free
    script: threads.js
    env: { PORT: ${p1} }
  - name: crowd
    script: threads.js
    instances: ${n}
    cpu_affinity: spread
    env: { PORT: ${p2} }
`);
  const r = await box.cli(['start', eco]);
  assert.equal(r.code, 0, r.stderr);
  assert.match(r.stderr, new RegExp(`warning: crowd: cpu_affinity spread puts ${n} workers on ${ALLOWED.length} CPUs \\(${ALL}\\)`));
  assert.match(r.stderr, new RegExp(`#${ALLOWED.length} with #0`));

  const daemon = masksOf(box.daemonPid());
  assert.ok(daemon.threads > 1);
  assert.deepEqual(daemon.masks, [String(ALLOWED[0])], 'every thread of the daemon');
  const ls = await lsJson(box);
  const free = ls.apps.find((x) => x.name === 'free').workers[0];
  assert.deepEqual(masksOf(free.pid).masks, [ALL], 'an unpinned app keeps the CPUs the daemon started with');
  const crowd = ls.apps.find((x) => x.name === 'crowd').workers;
  assert.deepEqual(crowd.map((w) => w.cpus), [...ALLOWED, ALLOWED[0]].map(String), 'spread wraps around');
  for (const w of crowd) assert.deepEqual(masksOf(w.pid).masks, [w.cpus]);
  const d = await describeJson(box, 'free');
  assert.equal(d.daemon_cpus, String(ALLOWED[0]));
  const sc = await box.cli(['scale', 'crowd', '+1']);
  assert.equal(sc.code, 0, sc.stderr);
  assert.match(sc.stderr, new RegExp(`warning: crowd: cpu_affinity spread puts ${n + 1} workers on ${ALLOWED.length} CPUs`), 'scale warns too');
  // The new slot gets its own CPU (spread: slot i on CPU i modulo the CPUs), every thread of it.
  const scaled = (await lsJson(box)).apps.find((x) => x.name === 'crowd').workers;
  const spread = (i) => String(ALLOWED[i % ALLOWED.length]);
  assert.deepEqual(scaled.map((w) => [w.slot, w.cpus, w.pinned]), Array.from({ length: n + 1 }, (_, i) => [i, spread(i), true]));
  assert.deepEqual(scaled.slice(0, n).map((w) => w.pid), crowd.map((w) => w.pid), 'the first slots were left alone');
  for (const w of scaled) assert.deepEqual(masksOf(w.pid).masks, [spread(w.slot)], `crowd#${w.slot}`);

  // `instances: max` still counts the CPUs the daemon started with, not its own pin.
  const eco2 = box.write('eco2.yml', `apps:\n  - name: wide\n    script: threads.js\n    instances: max\n    env: { PORT: ${await freePort()} }\n`);
  await box.start(eco2);
  assert.equal((await lsJson(box)).apps.find((x) => x.name === 'wide').workers.length, ALLOWED.length);
});
