// Watch mode: a burst of changes gives one reload, named in daemon.log; ignore_watch adds
// to the defaults (node_modules, .git, *.log) instead of replacing them (PM2 #5016);
// `super watch` and `super start --watch`; PM2's watch_options (polling, depth); a large
// tree is scanned off the daemon's loop (in the watch thread, as its ready event says). One
// daemon for the file: each test adds its own app, in its own directory (the one it
// watches), and deletes it at its end.
import test from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import http from 'node:http';
import { freePort, httpGet, lsJson, describeJson, FIXTURES } from '../helpers/harness.js';
import { fileSandbox, deleteAtEnd } from '../helpers/file-daemon.js';
import { makeIgnore, DEFAULT_IGNORE } from '../../lib/master/watch/watch-ignore.js';
import { fdTargets } from '../helpers/proc-fds.js';

/** Subscribes to watch and worker events; waitFor(pred) over everything seen so far. */
async function events(box, t) {
  const client = await box.client();
  const seen = [];
  const waiters = new Set();
  client.onEvent((e) => {
    if (!e.event) return;
    seen.push({ topic: e.event, ...e.data });
    for (const w of waiters) if (w.pred(seen.at(-1))) w.resolve(seen.at(-1));
  });
  await client.request('subscribe', { topics: ['worker', 'watch', 'reload'] });
  t.after(() => client.close());
  return {
    seen,
    client,
    waitFor(pred, what, timeout = 30000) {
      const hit = seen.find(pred);
      if (hit) return Promise.resolve(hit);
      return new Promise((resolve, reject) => {
        const w = { pred, resolve: (e) => { clearTimeout(timer); waiters.delete(w); resolve(e); } };
        const timer = setTimeout(() => { waiters.delete(w); reject(new Error(`timed out waiting for ${what}; saw ${JSON.stringify(seen.slice(-8))}`)); }, timeout);
        waiters.add(w);
      });
    },
  };
}

function getVia(agent, port) {
  return new Promise((resolve, reject) => {
    const req = http.get({ host: '127.0.0.1', port, path: '/', agent, timeout: 15000 }, (res) => {
      res.resume();
      res.on('end', () => resolve({ status: res.statusCode }));
    });
    req.on('timeout', () => req.destroy(new Error('timeout')));
    req.on('error', reject);
  });
}

const watchEv = (app, state) => (e) => e.topic === 'watch' && e.app === app && e.state === state;

/** Subscribed first, then asked: a scan that ended before we subscribed is not missed. */
async function watchReady(box, ev, app, timeout) {
  const d = await ev.client.request('describe', { app });
  if (d.app.watch?.ready) return { count: d.app.watch.count };
  return ev.waitFor(watchEv(app, 'ready'), `${app} watch ready`, timeout);
}

const box = await fileSandbox();

/**
 * The directory of app `name` (its cwd: what `watch: true` watches), with http-server.js in
 * it; the app is deleted when `t` ends. `write(file, text)` writes a file into it.
 */
function appDir(t, name) {
  const dir = path.join(box.dir, name);
  fs.mkdirSync(dir, { recursive: true });
  fs.copyFileSync(path.join(FIXTURES, 'apps', 'http-server.js'), path.join(dir, 'http-server.js'));
  deleteAtEnd(t, box, [name]);
  const write = (file, text) => box.write(path.join(name, file), text);
  return { dir, write };
}

async function watchedApp(t, name, extra = '', delay = '300ms') {
  const port = await freePort();
  const { dir, write } = appDir(t, name);
  write('src/a.js', '// a\n');
  const eco = write('eco.yml', `apps:\n  - name: ${name}\n    script: http-server.js\n    watch: true\n    watch_delay: ${delay}\n    env: { PORT: ${port} }\n${extra}`);
  return { port, eco, dir, write };
}
const workersOf = async (name) => (await lsJson(box)).apps.find((a) => a.name === name).workers;

test('a burst of changes reloads the app once, and daemon.log names the changed file', async (t) => {
  // watch_delay is 16 times the 60 ms between the burst's writes, so a test process slowed
  // by a loaded machine still writes each one before the debounce ends.
  const { port, eco, dir } = await watchedApp(t, 'burst', '', '1s');
  await box.start(eco);
  const ev = await events(box, t);
  await watchReady(box, ev, 'burst');
  const before = (await workersOf('burst'))[0].pid;

  // A keep-alive client loop runs through the reload: the reload is rolling, so it sees
  // no failure (bounded: it stops at the end of the reload, or after 20,000 requests).
  // Paced (10 ms after each answer, as test/helpers/load.js): two loops still send a request
  // every ~5 ms through the swap, without taking every cycle the machine has meanwhile.
  const agent = new http.Agent({ keepAlive: true, maxSockets: 2 });
  t.after(() => agent.destroy());
  let reloading = true;
  const failures = [];
  let sent = 0;
  const client = async () => {
    while (reloading && sent < 20000) {
      sent++;
      try {
        const r = await getVia(agent, port);
        if (r.status !== 200) failures.push(r.status);
      } catch (err) {
        failures.push(err.code ?? err.message);
      }
      await new Promise((r) => setTimeout(r, 10));
    }
  };
  const loop = Promise.all([client(), client()]);
  // The burst: writes spaced by less than watch_delay (1 s), so each one restarts the
  // debounce; then a tight run of writes, which the OS may merge into fewer events.
  const a = path.join(dir, 'src', 'a.js');
  for (let i = 0; i < 6; i++) {
    fs.writeFileSync(a, `// change ${i}\n`);
    await new Promise((r) => setTimeout(r, 60));
  }
  for (let i = 6; i < 20; i++) fs.writeFileSync(a, `// change ${i}\n`);
  const reload = await ev.waitFor(watchEv('burst', 'reload'), 'reload');
  assert.deepEqual(reload.files, [a]);
  assert.ok(reload.count >= 6, `the spaced writes were gathered into this one burst (${reload.count} changes)`);
  const done = await ev.waitFor(watchEv('burst', 'reloaded'), 'reloaded');
  reloading = false;
  await loop;
  assert.deepEqual(done.failed, []);
  assert.deepEqual(failures, [], `${sent} requests during the watch reload`);
  assert.ok(ev.seen.some((e) => e.topic === 'reload' && e.step === 'ready'), 'a rolling reload (replacement ready before the old worker left)');
  const after = (await workersOf('burst'))[0];
  assert.notEqual(after.pid, before, 'a new worker runs the new code');
  assert.equal(after.status, 'online');
  assert.match((await httpGet(port)).body, /app=burst/);

  // Once per burst. A second reload of this burst would come right after the first one
  // ended (queued while it ran) or before the marker's (the thread sends bursts in order).
  const reloads = () => ev.seen.filter(watchEv('burst', 'reload'));
  assert.equal(reloads().length, 1, 'one reload for the burst so far');
  const b = path.join(dir, 'src', 'b.js');
  fs.writeFileSync(b, '// new file\n');
  const second = await ev.waitFor((e) => watchEv('burst', 'reload')(e) && e.files.includes(b), 'the reload for b.js');
  await ev.waitFor((e) => watchEv('burst', 'reloaded')(e) && ev.seen.indexOf(e) > ev.seen.indexOf(second), 'second reloaded');
  assert.deepEqual(reloads().map((e) => e.files), [[a], [b]], 'exactly one reload per burst');

  const log = fs.readFileSync(path.join(box.home, 'daemon.log'), 'utf8');
  // (the OS may merge the 20 writes into fewer events; the count says how many arrived)
  assert.match(log, /"msg":"watch: src\/a\.js changed( and \d+ more change\(s\))?; reloading burst"/);
  assert.match(log, /"msg":"watch: src\/b\.js changed( and \d+ more change\(s\))?; reloading burst"/);
});

test('ignore_watch adds to the defaults: node_modules, .git and log files stay ignored', async (t) => {
  const { eco, dir, write } = await watchedApp(t, 'ignoring', '    ignore_watch: ["*.tmp", "build/**"]\n');
  for (const d of ['node_modules/dep', '.git', 'build/out', 'logs']) fs.mkdirSync(path.join(dir, d), { recursive: true });
  await box.start(eco);
  const ev = await events(box, t);
  await watchReady(box, ev, 'ignoring');

  // Ignored: defaults and the app's own patterns. Then one watched change as a marker:
  // the reload it causes must name only the marker, so nothing ignored got through.
  write('node_modules/dep/index.js', 'x');
  write('.git/HEAD', 'x');
  write('logs/app.log', 'x');
  write('scratch.tmp', 'x');
  write('build/out/bundle.js', 'x');
  write('src/marker.js', 'x');
  const reload = await ev.waitFor(watchEv('ignoring', 'reload'), 'reload');
  // (files names up to 10 distinct paths: any ignored one that got through would be there;
  // count may be 2, as a new file can give 'add' then 'change')
  assert.deepEqual(reload.files, [path.join(dir, 'src', 'marker.js')]);
});

test('super watch <app> on|off, and super start --watch', async (t) => {
  const port = await freePort();
  const { dir, write } = appDir(t, 'toggled');
  const eco = write('eco.yml', `apps:\n  - name: toggled\n    script: http-server.js\n    watch_delay: 200ms\n    env: { PORT: ${port} }\n`);
  const r = await box.cli(['start', eco, '--watch']);
  assert.equal(r.code, 0, r.stderr);
  const ev = await events(box, t);
  await watchReady(box, ev, 'toggled');
  const d = await describeJson(box, 'toggled');
  assert.deepEqual(d.config.watch, [dir]);

  const off = await box.cli(['watch', 'toggled', 'off']);
  assert.equal(off.code, 0, off.stderr);
  assert.equal(off.stdout, 'toggled: not watching\n');
  const mark = ev.seen.length;
  const on = await box.cli(['watch', 'toggled', 'on']);
  assert.equal(on.stdout, `toggled: watching ${dir}\n`);
  await ev.waitFor((e) => watchEv('toggled', 'ready')(e) && ev.seen.indexOf(e) >= mark, 'ready again');
  write('x.js', 'x');
  await ev.waitFor(watchEv('toggled', 'reloaded'), 'reload after watch on');

  const bad = await box.cli(['watch', 'toggled', 'maybe']);
  assert.equal(bad.code, 2);
  assert.match(bad.stderr, /^super: E_USAGE: say on or off/);
  const missing = await box.cli(['watch', 'nope', 'on']);
  assert.equal(missing.code, 2);
  assert.match(missing.stderr, /E_APP_NOT_FOUND/);
});

test('a tree of thousands of files is scanned off the daemon\'s event loop', async (t) => {
  const port = await freePort();
  const { dir: root, write } = appDir(t, 'tree');
  const eco = write('eco.yml', `apps:\n  - name: tree\n    script: http-server.js\n    env: { PORT: ${port} }\n`);
  for (let d = 0; d < 150; d++) {
    const dir = path.join(root, 'src', `d${d}`);
    fs.mkdirSync(dir, { recursive: true });
    for (let f = 0; f < 50; f++) fs.writeFileSync(path.join(dir, `f${f}.js`), '');
  }
  for (let f = 0; f < 2000; f++) write(`node_modules/m${f % 20}/f${f}.js`, '');
  await box.start(eco);
  const ev = await events(box, t);
  // Subscribed first: the ready event of this scan names the thread that ran it, the watch
  // thread (a worker_threads threadId), never the daemon's main thread (0), whose loop every
  // connection goes through. The loop delay it spares is a figure, for bench/watch-scan.js.
  assert.deepEqual((await ev.client.request('watch', { app: 'tree', on: true })).watch, [root]);
  const ready = await ev.waitFor(watchEv('tree', 'ready'), 'tree watch ready', 60000);
  t.diagnostic(`${ready.count} paths, scanned by thread ${ready.thread}`);
  assert.ok(ready.count >= 7500, `${ready.count} paths watched`);
  assert.ok(ready.count < 8500, `node_modules was not scanned (${ready.count} paths)`);
  assert.ok(Number.isInteger(ready.thread) && ready.thread > 0, `scanned off the daemon's main thread: thread ${ready.thread}`);
  assert.equal((await httpGet(port)).status, 200, 'the app still answers');
});

/** The inode numbers (hex, as /proc prints them) the daemon holds inotify watches on. */
function inotifyInodes(pid) {
  const inodes = new Set();
  for (const { fd, target } of fdTargets(pid)) {
    if (target !== 'anon_inode:inotify') continue;
    const info = fs.readFileSync(`/proc/${pid}/fdinfo/${fd}`, 'utf8');
    for (const m of info.matchAll(/^inotify wd:\S+ ino:([0-9a-f]+)/gm)) inodes.add(m[1]);
  }
  return inodes;
}

test('watch_options (PM2\'s key): usePolling watches by polling, no inotify watch; depth and ignored leave changes out', async (t) => {
  // Side by side: an app watched by change events (its directory holds an inotify watch:
  // what the check below looks for is there to find) and one with usePolling (none).
  const evented = await watchedApp(t, 'evented', '', '200ms');
  const polled = await watchedApp(t, 'polled', '    watch_options: { usePolling: true, interval: 100ms }\n', '200ms');
  const shallow = await watchedApp(t, 'shallow', '    watch_options: { depth: 0, ignored: ["*.tmp"] }\n', '200ms');
  for (const a of [evented, polled, shallow]) await box.start(a.eco);
  const ev = await events(box, t);
  for (const name of ['evented', 'polled', 'shallow']) await watchReady(box, ev, name);
  const ino = (dir) => fs.statSync(dir).ino.toString(16);
  const watched = inotifyInodes(box.daemonPid());
  assert.ok(watched.has(ino(evented.dir)), 'the evented app\'s directory has an inotify watch');
  assert.ok(!watched.has(ino(polled.dir)) && !watched.has(ino(path.join(polled.dir, 'src'))), 'the polled app\'s tree has none');

  // Polling sees a change all the same.
  polled.write('src/a.js', '// changed\n');
  const reload = await ev.waitFor(watchEv('polled', 'reload'), 'the polled app\'s reload');
  assert.deepEqual(reload.files, [path.join(polled.dir, 'src', 'a.js')]);

  // depth 0: src/a.js is one level down; *.tmp is ignored. The marker's reload names only it.
  shallow.write('src/a.js', '// deeper than depth 0\n');
  shallow.write('scratch.tmp', 'x');
  shallow.write('marker.js', 'x');
  const shallowReload = await ev.waitFor(watchEv('shallow', 'reload'), 'the shallow app\'s reload');
  assert.deepEqual(shallowReload.files, [path.join(shallow.dir, 'marker.js')]);
  const d = await describeJson(box, 'shallow');
  assert.deepEqual([d.config.watch_options, d.config.ignore_watch], [{ depth: 0 }, ['*.tmp']]);
});

test('ignore patterns (unit)', () => {
  assert.deepEqual(DEFAULT_IGNORE, ['node_modules', '.git', '*.log']);
  const ig = makeIgnore({ roots: ['/a'], patterns: ['dist/**', '*.tmp', 'config/local.json'], files: ['/a/out/app-out.log2'] });
  const yes = ['/a/node_modules/x.js', '/a/src/node_modules/y', '/a/.git/HEAD', '/a/x.log', '/a/dist', '/a/dist/x/y.js', '/a/q.tmp', '/a/config/local.json', '/a/out/app-out.log2'];
  const no = ['/a/x.js', '/a/src/dist/x.js', '/a/distx/y', '/a/config/other.json', '/a/x.log.js', '/b/node_modulesx', '/a'];
  for (const p of yes) assert.equal(ig(p), true, p);
  for (const p of no) assert.equal(ig(p), false, p);
});
