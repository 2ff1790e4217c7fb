// super run: the foreground / container mode. The process is the daemon; app output goes
// to stdout/stderr with prefixes; signals stop everything gracefully; exit statuses; the
// control channel attaches; as PID 1 (in a PID namespace of its own) orphans are reaped.
import test from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { spawnSync, execFile } from 'node:child_process';
import { sandbox, freePort, httpGet, lsJson, workerPids, waitGone, SUPER } from '../helpers/harness.js';
import { superProcess } from '../helpers/super-process.js';
import { eventually } from '../helpers/wait.js';

async function talker(box, { instances = 2 } = {}) {
  const port = await freePort();
  box.write('talker.js', `
import http from 'node:http';
console.log('hello from slot ' + process.env.NODE_APP_INSTANCE);
console.error('warning from slot ' + process.env.NODE_APP_INSTANCE);
http.createServer((req, res) => { console.log('GET ' + req.url); res.end('ok\\n'); }).listen(${port}, '127.0.0.1');
// A drained worker may end on its own or get kill_signal (SIGINT): last words either way.
process.on('exit', () => console.log('bye from slot ' + process.env.NODE_APP_INSTANCE));
process.on('SIGINT', () => process.exit(0));
`);
  // kill_timeout: a worker descheduled on a loaded machine still gets to its last words.
  const eco = box.write('eco.yml', `apps:\n  - name: talker\n    script: talker.js\n    instances: ${instances}\n    kill_timeout: 10s\n`);
  return { port, eco };
}

// The live dashboard in a real terminal (tmux, as test/metrics/monit.test.js) on a `super run` daemon.
const noTmux = spawnSync('tmux', ['-V']).status === 0 ? false : 'tmux is not installed (apt-get install tmux)';

/** `super monit` in tmux on the daemon of `box` (the foreground `run`): it shows the apps, and quits leaving `run` running. */
async function monitAttaches(box, t, run) {
  const tmux = (...a) => new Promise((resolve, reject) => execFile('tmux', ['-S', path.join(box.dir, 'tmux.sock'), ...a], (err, out) => (err ? reject(err) : resolve(out))));
  await tmux('new-session', '-d', '-s', 'm', '-x', '120', '-y', '34', `SUPER_HOME=${box.home} NO_COLOR=1 ${process.execPath} ${SUPER} monit; echo MONIT-EXIT=$?; sleep 60`);
  const server = Number(await tmux('display-message', '-p', '#{pid}'));
  t.after(() => { try { process.kill(server, 'SIGTERM'); } catch {} });
  // A terminal sends no event to wait on: poll the screen.
  let s = '';
  const screenWith = (re) => eventually(async () => re.test((s = await tmux('capture-pane', '-p', '-t', 'm'))) && s, { timeout: 15000, every: 100, what: `the screen to show ${re}`, last: () => s });
  const screen = await screenWith(/^talker\s+1\s+\d+\s+online/m);
  assert.match(screen, /superd monit\s+1 app\(s\), 2 worker\(s\)\s+daemon pid (\d+)/);
  assert.equal(Number(/daemon pid (\d+)/.exec(screen)[1]), run.child.pid, 'the foreground daemon');
  assert.match(screen, /^talker\s+0\s+\d+\s+online/m);
  await tmux('send-keys', '-t', 'm', 'q');
  assert.match(await screenWith(/MONIT-EXIT=/), /MONIT-EXIT=0/);
  assert.equal(run.child.exitCode, null, 'super run goes on');
}

// One `super run` for the output, the attaching clients (ls, and monit in tmux) and the stop.
test('super run: the apps\' output on stdout/stderr with prefixes, super ls attaches, SIGTERM stops gracefully with exit 0', async (t) => {
  const box = await sandbox(t);
  const { port, eco } = await talker(box);
  const run = superProcess(box, t, ['run', eco]);
  await run.waitFor(/talker online/, { stream: 'err' });
  await run.waitFor(/^talker#0 \| hello from slot 0$/m, { stream: 'out' });
  await run.waitFor(/^talker#1 \| hello from slot 1$/m, { stream: 'out' });
  await run.waitFor(/^talker#0 ! warning from slot 0$/m, { stream: 'err' });
  assert.equal((await httpGet(port, '/ping')).status, 200);
  await run.waitFor(/^talker#\d \| GET \/ping$/m, { stream: 'out' });

  // The control channel works: another process lists the apps of this foreground daemon.
  const ls = await lsJson(box);
  assert.deepEqual(ls.apps.map((a) => [a.name, a.status, a.workers.length]), [['talker', 'online', 2]]);
  assert.equal(box.daemonPid(), run.child.pid, 'no detached daemon: this process is the daemon');

  await t.test('super monit attaches to a super run daemon and quits leaving it running', { skip: noTmux }, () => monitAttaches(box, t, run));

  const workers = await workerPids(run.child.pid);
  const exit = await run.stop('SIGTERM');
  assert.deepEqual(exit, { code: 0, signal: null }, run.stderr);
  assert.deepEqual(await waitGone(workers), []);
  // Graceful: the workers ended on their own terms, and their last words were printed.
  assert.match(run.stdout, /^talker#0 \| bye from slot 0$/m, `stdout:\n${run.stdout}\nstderr:\n${run.stderr}`);
  assert.match(run.stdout, /^talker#1 \| bye from slot 1$/m, `stdout:\n${run.stdout}\nstderr:\n${run.stderr}`);
  assert.equal(fs.existsSync(path.join(box.home, 'super.sock')), false);
});

test('super run --json: one JSON object per line, only lines written from now on; SIGINT exits 0', async (t) => {
  const box = await sandbox(t);
  const { eco } = await talker(box, { instances: 1 });
  // What a former run left in the log file (a container restarted with the same writable layer).
  fs.mkdirSync(path.join(box.home, 'logs'), { recursive: true, mode: 0o700 });
  fs.writeFileSync(path.join(box.home, 'logs', 'talker-out-0.log'), 'hello from a former run\n');
  const run = superProcess(box, t, ['run', eco, '--json']);
  // Stopped once the app is online: the JSON lines and the exit status are under test here,
  // not a stop that comes while a worker still boots.
  await run.waitFor(/talker online/, { stream: 'err' });
  await run.waitFor(/"msg":"hello from slot 0"/, { stream: 'out' });
  await run.waitFor(/"msg":"warning from slot 0"/, { stream: 'out' });
  assert.deepEqual(await run.stop('SIGINT'), { code: 0, signal: null }, run.stderr);
  const lines = run.stdout.trim().split('\n').map((l) => JSON.parse(l));
  assert.ok(lines.some((o) => o.app === 'talker' && o.slot === 0 && o.stream === 'out' && o.msg === 'hello from slot 0'));
  assert.ok(lines.some((o) => o.app === 'talker' && o.stream === 'err' && o.msg === 'warning from slot 0'));
  assert.ok(!lines.some((o) => o.msg === 'hello from a former run'), 'an old line is not printed again');
  assert.ok(lines.every((o) => Number.isInteger(o.time) && Math.abs(o.time - Date.now()) < 60000), 'each line carries its time (epoch ms)');
});

test('super run: SIGINT while the apps start stops everything with exit 0, and reports no start failure', async (t) => {
  const box = await sandbox(t);
  const port = await freePort();
  // Ready (listening) only long after the signal; kill_signal (SIGINT) ends it at once.
  box.write('slow.js', `
import http from 'node:http';
console.log('booting');
process.on('SIGINT', () => process.exit(0));
setTimeout(() => http.createServer((req, res) => res.end('ok')).listen(${port}, '127.0.0.1'), 20000);
`);
  const run = superProcess(box, t, ['run', box.write('slow.yml', 'apps:\n  - name: slow\n    script: slow.js\n')]);
  await run.waitFor(/^slow#0 \| booting$/m, { stream: 'out' });
  assert.deepEqual(await run.stop('SIGINT'), { code: 0, signal: null }, run.stderr);
  assert.doesNotMatch(run.stderr, /E_START_FAILED|failed to start/, 'a stop the user asked for is not a start failure');
});

test('super run exits 1 when an app fails to start (everything stopped), 2 for a bad file', async (t) => {
  const box = await sandbox(t);
  const { eco } = await talker(box, { instances: 1 });
  box.write('crash.js', 'console.error("cannot start: missing DATABASE_URL"); process.exit(3);\n');
  const both = box.write('both.yml', `${fs.readFileSync(eco, 'utf8')}  - name: broken\n    script: crash.js\n`);
  const run = superProcess(box, t, ['run', both]);
  const exit = await run.exited;
  assert.deepEqual(exit, { code: 1, signal: null }, run.stderr);
  assert.match(run.stderr, /super run: E_START_FAILED: broken#0 exited with code 3 before it became ready; stopping everything/);
  assert.match(run.stderr, /broken#0 \| cannot start: missing DATABASE_URL/);
  assert.equal(fs.existsSync(path.join(box.home, 'super.sock')), false);

  const bad = box.write('bad.yml', 'apps:\n  - name: x\n    script: nope.js\n');
  const r = await box.cli(['run', bad]);
  assert.equal(r.code, 2);
  assert.match(r.stderr, /^super: E_CONFIG: 1 problem in /);
  assert.equal(fs.existsSync(path.join(box.home, 'daemon.pid')), false, 'no daemon was started');
});

// A PID namespace of our own makes `super run` PID 1, as in a container (needs root).
const canUnshare = spawnSync('unshare', ['--pid', '--fork', '--kill-child', '--mount-proc', 'true']).status === 0;
const hasTini = spawnSync('tini', ['--version']).status === 0;
const needNs = canUnshare && (hasTini || process.env.CI) ? {} : { skip: 'needs root for unshare --pid and tini (apt-get install tini)' };

/** Every process below `root` (host pids), with its state and command name. */
function tree(root) {
  const procs = [];
  for (const name of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    try {
      const stat = fs.readFileSync(`/proc/${name}/stat`, 'utf8');
      const comm = stat.slice(stat.indexOf('(') + 1, stat.lastIndexOf(')'));
      const [state, ppid] = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      procs.push({ pid: Number(name), ppid: Number(ppid), state, comm });
    } catch {}
  }
  const below = new Set([root]);
  for (let grew = true; grew;) {
    grew = false;
    for (const p of procs) if (!below.has(p.pid) && below.has(p.ppid)) { below.add(p.pid); grew = true; }
  }
  return procs.filter((p) => below.has(p.pid) && p.pid !== root);
}

async function runAsPid1(t, { reaper }) {
  const box = await sandbox(t);
  const port = await freePort();
  box.fixture('orphans.js');
  const eco = box.write('eco.yml', `apps:\n  - name: orphans\n    script: orphans.js\n    env: { PORT: ${port} }\n`);
  // Its own SUPER_HOME: the pid file it writes holds a pid of the namespace, which the
  // sandbox's cleanup must never take for a host pid. --kill-child: if unshare is killed
  // (the test's cleanup), the namespace's PID 1 and so everything in it dies too.
  const env = { SUPER_HOME: path.join(box.dir, 'ns-home'), ...(reaper ? {} : { SUPER_RUN_REAPED: '1' }) }; // REAPED: as if a reaper ran already; none does
  const run = superProcess(box, t, [], { cmd: 'unshare', argv: ['--pid', '--fork', '--kill-child', '--mount-proc', process.execPath, SUPER, 'run', eco], env });
  await run.waitFor(/orphans#0 \| orphans made: 5/, { stream: 'out' });
  const sleeps = () => tree(run.child.pid).filter((p) => p.comm === 'sleep');
  return { box, run, sleeps };
}

test('super run as PID 1 runs under tini -s: orphans are reaped; SIGTERM to PID 1 exits 0', needNs, async (t) => {
  const { run, sleeps } = await runAsPid1(t, { reaper: true });
  assert.ok(tree(run.child.pid).some((p) => p.comm === 'tini'), 'tini runs below PID 1');
  // The orphaned sleeps end after 0.3 s; reaped, they leave nothing behind (not even a zombie).
  await eventually(() => sleeps().length === 0, { every: 25, what: 'the orphans reaped', last: () => JSON.stringify(sleeps()) });
  const init = tree(run.child.pid).find((p) => p.ppid === run.child.pid); // PID 1 of the namespace
  process.kill(init.pid, 'SIGTERM');
  assert.deepEqual(await run.exited, { code: 0, signal: null }, run.stderr);
});

test('control: without a reaper, PID 1 leaves the same orphans as zombies (the test above can fail)', needNs, async (t) => {
  const { run, sleeps } = await runAsPid1(t, { reaper: false });
  await eventually(() => sleeps().length === 5 && sleeps().every((p) => p.state === 'Z'), { every: 25, what: '5 zombies', last: () => JSON.stringify(sleeps()) });
  const init = tree(run.child.pid).find((p) => p.ppid === run.child.pid);
  process.kill(init.pid, 'SIGTERM');
  assert.deepEqual(await run.exited, { code: 0, signal: null }, run.stderr);
});
