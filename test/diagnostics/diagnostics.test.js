// Issue 15: live diagnostics of running workers, against one real daemon: CPU profiles
// (super profile), heap snapshots (super heap), stall captures (profile_on_stall), the
// remote control channel, and every refusal with its code.
import test from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { sandbox, freePort, httpGet } from '../helpers/harness.js';
import { waitForLog } from '../helpers/metrics.js';
import { topSelfTime } from '../../lib/profiles/profile-summary.js';
import { connect } from '../../lib/ipc/client.js';
import { request } from '../helpers/requests.js';

/**
 * Requests that burn CPU in burnCpuInHotLoop, two at a time, until stop() (bounded), from
 * the moment the worker has been asked for a profile: V8's profiler names code compiled
 * before it started (a hot loop compiled on the stack, a function inlined into it) by the
 * function that holds it, so the hot code is compiled under the profiler.
 */
function burnLoad(port) {
  let stop = false;
  const loop = async () => {
    for (let i = 0; i < 2000 && !stop; i++) await httpGet(port, '/burn?ms=10');
  };
  const running = (async () => {
    for (let i = 0; i < 1000 && !stop && (await httpGet(port, '/profiled')).body !== 'true'; i++) await new Promise((r) => setTimeout(r, 10));
    await Promise.all([loop(), loop()]);
  })();
  return () => {
    stop = true;
    return running;
  };
}

const mode = (file) => fs.statSync(file).mode & 0o777;
const oneLine = (stderr, code) => {
  const lines = stderr.trim().split('\n');
  assert.equal(lines.length, 1, `one line: ${stderr}`);
  assert.match(lines[0], new RegExp(`^super: ${code}: `));
};

test('live diagnostics', { timeout: 120000 }, async (t) => {
  const box = await sandbox(t);
  const [hot, hot2, heapy, stally, doomed, slowturns, control] = await Promise.all([freePort(), freePort(), freePort(), freePort(), freePort(), freePort(), freePort()]);
  box.fixture('diag-lab.js');
  box.fixture('script.sh');
  const eco = box.write('eco.yml', `control: { listen: 127.0.0.1:${control} }
apps:
  - name: hot
    script: diag-lab.js
    env: { PORT: ${hot} }
  - name: hot2
    script: diag-lab.js
    env: { PORT: ${hot2} }
  - name: heapy
    script: diag-lab.js
    exec_mode: fork
    env: { PORT: ${heapy}, RETAIN: 50000 }
  - name: stally
    script: diag-lab.js
    metrics_interval: 250ms
    profile_on_stall: { loop_delay: 200ms, duration: 400ms, cooldown: 1500ms, keep: 2 }
    env: { PORT: ${stally}, STALL_MS: 300 }
  - name: doomed
    script: diag-lab.js
    autorestart: false
    env: { PORT: ${doomed}, EXIT_WHEN_PROFILED: 3 }
  - name: slowturns
    script: diag-lab.js
    env: { PORT: ${slowturns}, SLOW_TURNS_WHEN_PROFILED: 1000 }
  - name: native
    script: script.sh
    interpreter: none
`);
  await box.start(eco);
  const profiles = path.join(box.home, 'profiles');
  // The stall captures come by themselves from now on; they are checked first.
  const captures = new Map(); // file -> capture, in the order seen
  const metrics = await box.client();
  t.after(() => metrics.close());
  let capturesSeen = null;
  metrics.onEvent(({ event, data }) => {
    if (event !== 'metrics') return;
    const w = data.apps.find((a) => a.name === 'stally')?.workers[0];
    if (w?.stall_capture) captures.set(w.stall_capture.file, w.stall_capture);
    if (captures.size >= 3) capturesSeen?.();
  });
  await metrics.request('subscribe', { topics: ['metrics'] });

  await t.test('stall capture: one per cooldown, the oldest beyond keep removed, named by ls and daemon.log', async () => {
    if (captures.size < 3) await new Promise((resolve) => (capturesSeen = resolve));
    const list = [...captures.values()];
    for (let i = 1; i < list.length; i++) assert.ok(list[i].at - list[i - 1].at >= 1500, `at most one per cooldown: ${JSON.stringify(list)}`);
    const last = list.at(-1);
    assert.ok(last.loop_p99_ms >= 200);
    const kept = fs.readdirSync(profiles).filter((n) => n.startsWith('stall-stally-'));
    assert.ok(kept.length <= 2, `keep: 2, found ${kept}`);
    assert.ok(kept.includes(path.basename(last.file)));
    assert.equal(mode(last.file), 0o600);
    const ls = await box.cli(['ls']);
    assert.match(ls.stdout, /stally#0: stall capture/);
    await waitForLog(box, new RegExp(`stall capture written: ${last.file.replace(/[.]/g, '\\.')}`));
    // It blocks its loop 300 ms a second: stopped here, it costs nothing to the checks after.
    await request(box, 'delete', { target: ['stally'] });
  });

  await t.test('a profile under load names the hot function; meanwhile a heap snapshot of that worker is E_BUSY, one of a fork-mode worker and bad inputs are served', async () => {
    const stopLoad = burnLoad(hot);
    const client = await box.client();
    t.after(() => client.close());
    // The load ends with the profile, not with the slowest CLI run below (each burns a core).
    const held = client.request('profile', { app: 'hot', slot: 0, duration: 2500 }, { timeout: 60000 }).finally(stopLoad);
    // Requests on one connection are taken in order: hot#0 is being profiled for this one.
    const busy = await client.request('heap', { app: 'hot', slot: 0 }).catch((err) => err);
    const [heap, unknownApp, unknownSlot, tooLong, missingDir, native] = await Promise.all([
      box.cli(['heap', 'heapy', '--json']),
      box.cli(['profile', 'nope']),
      box.cli(['profile', 'hot#7']),
      box.cli(['profile', 'hot', '--duration', '6m']),
      box.cli(['profile', 'hot', '--out', path.join(box.dir, 'missing', 'p.cpuprofile')]),
      box.cli(['profile', 'native']),
    ]);
    const done = await held;

    assert.equal(busy.code, 'E_BUSY');
    assert.match(busy.message, /^hot#0: a CPU profile of this worker is being taken/);
    assert.equal(unknownApp.code, 2);
    oneLine(unknownApp.stderr, 'E_APP_NOT_FOUND');
    assert.equal(unknownSlot.code, 2);
    oneLine(unknownSlot.stderr, 'E_USAGE');
    assert.equal(tooLong.code, 2);
    oneLine(tooLong.stderr, 'E_USAGE');
    assert.match(tooLong.stderr, /--duration 6m/);
    assert.equal(missingDir.code, 2);
    oneLine(missingDir.stderr, 'E_USAGE');
    assert.match(missingDir.stderr, /does not exist/);
    assert.equal(native.code, 2);
    oneLine(native.stderr, 'E_NO_AGENT');
    assert.match(native.stderr, /interpreter: none/);

    // The profile held during the load: its top self-time frame is the hot function.
    const [file] = done.files;
    assert.equal(path.dirname(file.path), profiles);
    assert.equal(mode(profiles), 0o700);
    assert.equal(mode(file.path), 0o600);
    // The first app frame: (idle), (program) and (garbage collector) are V8's own rows.
    const top = topSelfTime(JSON.parse(fs.readFileSync(file.path, 'utf8')), { limit: 20 }).find((r) => !r.functionName.startsWith('('));
    assert.equal(top.functionName, 'burnCpuInHotLoop', JSON.stringify(top));

    // The heap snapshot of a fork-mode worker: parsed here (never by the daemon).
    assert.equal(heap.code, 0, heap.stderr);
    const h = JSON.parse(heap.stdout);
    assert.ok(h.heap_used > 0 && h.bytes > 0, heap.stdout);
    assert.equal(mode(h.path), 0o600);
    assert.ok(retainedCount(JSON.parse(fs.readFileSync(h.path, 'utf8')), 'RetainedWidget') >= 50000);
  });

  await t.test('super profile prints the top functions with file:line and writes the flame graph beside the profile', async () => {
    const stopLoad = burnLoad(hot2);
    const out = path.join(box.dir, 'hot.cpuprofile');
    const r = await box.cli(['profile', 'hot2', '--duration', '1000ms', '--out', out]);
    await stopLoad();
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stdout, /burnCpuInHotLoop/);
    assert.match(r.stdout, /diag-lab\.js:12\b/, 'file:line of burnCpuInHotLoop');
    assert.match(r.stdout, new RegExp(`${out.replace(/[.]/g, '\\.')}`));
    assert.match(fs.readFileSync(path.join(box.dir, 'hot.html'), 'utf8'), /burnCpuInHotLoop/);
  });

  await t.test('a worker that exits mid-profile: E_WORKER_EXITED and no file left', async () => {
    const r = await box.cli(['profile', 'doomed#0', '--duration', '3s']);
    assert.equal(r.code, 1);
    oneLine(r.stderr.replace(/^profiling.*\n/, ''), 'E_WORKER_EXITED');
    // Its process.exit(3) can end in SIGSEGV instead: Node 20's inspector, stopping a CPU
    // profile while the process exits, sometimes crashes (seen once in 5 runs on a loaded
    // machine). Either way the worker is gone before the profile is written.
    assert.match(r.stderr, /doomed#0 exited (with code 3|on signal SIGSEGV) before its CPU profile was written/);
    assert.deepEqual(fs.readdirSync(profiles).filter((n) => n.startsWith('doomed')), []);
  });

  await t.test('a worker whose event loop turns last 1 s answers one turn after its profile ends, not one turn per write step', async () => {
    const client = await box.client();
    t.after(() => client.close());
    const r = await client.request('profile', { app: 'slowturns', slot: 0, duration: 100 }, { timeout: 30000 });
    // Counted in the worker's turns (each marks its start in a file), not in ms: the
    // message's turn, the timer's, and the next while the answer travels (3; a slow trip
    // back through the daemon, 4); an async write (open, write, close, rename: a turn
    // each) answers three turns later.
    const turns = fs.readdirSync(box.dir).filter((n) => n.startsWith('slow-turn-')).length;
    assert.ok(turns <= 4, `answered once ${turns} slow turns had started`);
    assert.ok(r.files[0].bytes > 0);
  });

  await t.test('over the TCP control channel the file comes back to the client; --out is never sent to the daemon', async () => {
    assert.equal((await box.cli(['token'])).code, 0);
    const out = path.join(box.dir, 'remote', 'r.cpuprofile');
    fs.mkdirSync(path.dirname(out));
    const r = await box.cli(['--host', `127.0.0.1:${control}`, '--token-file', path.join(box.home, 'token'), 'profile', 'hot#0', '--duration', '300ms', '--out', out, '--json']);
    assert.equal(r.code, 0, r.stderr);
    const [f] = JSON.parse(r.stdout).files;
    assert.equal(f.path, out);
    assert.equal(path.dirname(f.daemon_path), profiles, 'the daemon wrote into its own profiles/ only');
    assert.deepEqual(fs.readFileSync(out), fs.readFileSync(f.daemon_path));
    assert.equal(mode(out), 0o600);
    // A remote client that names a file on the daemon's host is refused before any worker is asked.
    const token = fs.readFileSync(path.join(box.home, 'token'), 'utf8').trim();
    const remote = await connect(box.home, { remote: { where: { host: '127.0.0.1', port: control, hostHeader: `127.0.0.1:${control}`, headers: { authorization: `Bearer ${token}` } }, label: 'remote' } });
    t.after(() => remote.close());
    const refused = await remote.request('profile', { app: 'hot', duration: 200, out: path.join(box.dir, 'chosen.cpuprofile') }).catch((err) => err);
    assert.equal(refused.code, 'E_LOCAL_ONLY');
    assert.equal(fs.existsSync(path.join(box.dir, 'chosen.cpuprofile')), false);
  });

});

/** The number of heap-graph nodes of class `name` in a parsed .heapsnapshot. */
function retainedCount(snapshot, name) {
  const { meta } = snapshot.snapshot;
  const fields = meta.node_fields.length;
  const typeAt = meta.node_fields.indexOf('type');
  const nameAt = meta.node_fields.indexOf('name');
  const objectType = meta.node_types[0].indexOf('object');
  const nameIndex = snapshot.strings.indexOf(name);
  let count = 0;
  for (let i = 0; i < snapshot.nodes.length; i += fields) {
    if (snapshot.nodes[i + typeAt] === objectType && snapshot.nodes[i + nameAt] === nameIndex) count++;
  }
  return count;
}
