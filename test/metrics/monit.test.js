// Issue 4: `super monit` driven in a real terminal (tmux): it shows the apps, moves the
// selection, shows the selected app's log pane, reloads with confirmation, resizes, and
// quits leaving the terminal as it was. Without a TTY it prints one plain snapshot and exits 0.
import test, { after } from 'node:test';
import assert from 'node:assert/strict';
import path from 'node:path';
import { execFileSync, execFile } from 'node:child_process';
import { sandbox, freePort, SUPER, lsJson, httpGet } from '../helpers/harness.js';
import { eventually } from '../helpers/wait.js';
import { TOPICS } from '../../lib/ipc/protocol.js';
import { request } from '../helpers/requests.js';

const lsJsonOf = async (box) => (await lsJson(box)).apps.find((a) => a.name === 'web').workers;

const hasTmux = (() => {
  try {
    execFileSync('tmux', ['-V'], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
})();
const skip = hasTmux ? false : 'tmux is not installed (apt-get install tmux; .ci/run installs it)';

/** A private tmux server in the sandbox running `cmd` in a 120x34 window. */
function tmux(box, t) {
  const sock = path.join(box.dir, 'tmux.sock');
  const run = (...args) => new Promise((resolve, reject) => {
    execFile('tmux', ['-S', sock, ...args], (err, stdout) => (err ? reject(err) : resolve(stdout)));
  });
  // By pid, not over the socket: the sandbox (and the socket in it) may be gone first.
  let serverPid = null;
  t.after(() => {
    try {
      if (serverPid) process.kill(serverPid, 'SIGTERM');
    } catch {}
  });
  return {
    async start(cmd) {
      await run('new-session', '-d', '-s', 'm', '-x', '120', '-y', '34', cmd);
      serverPid = Number(await run('display-message', '-p', '#{pid}'));
    },
    keys: (...k) => run('send-keys', '-t', 'm', ...k),
    capture: () => run('capture-pane', '-p', '-t', 'm'),
    resize: (x, y) => run('resize-window', '-t', 'm', '-x', String(x), '-y', String(y)),
    /** Polls the screen until pred(text) holds (a terminal sends no events we could wait on). */
    async waitScreen(pred, what, timeout = 15000) {
      let text = '';
      return eventually(async () => pred((text = await run('capture-pane', '-p', '-t', 'm'))) && text, { timeout, every: 100, what: `the screen to show ${what}`, last: () => text });
    },
  };
}

test('super monit in tmux: apps, selection, log pane, reload prompt, resize, clean quit', { skip }, async (t) => {
  const box = await sandbox(t);
  const [p1, p2] = [await freePort(), await freePort()];
  box.fixture('loop-lab.js');
  const eco = box.write('eco.yml', `metrics: { interval: 250ms }\napps:\n  - name: web\n    script: loop-lab.js\n    instances: 2\n    env: { PORT: ${p1} }\n  - name: jobs\n    script: loop-lab.js\n    env: { PORT: ${p2} }\n`);
  await box.start(eco);
  const term = tmux(box, t);
  await term.start(`SUPER_HOME=${box.home} NO_COLOR=1 ${process.execPath} ${SUPER} monit; echo MONIT-EXIT=$?; sleep 60`);

  let screen = await term.waitScreen((s) => /^web\s+1\s+\d+\s+online/m.test(s) && /^jobs\s+0\s+\d+\s+online/m.test(s) && /loop\s+\S+\s+p99/.test(s), 'both apps with their workers and a loop sparkline');
  assert.match(screen, /superd monit\s+2 app\(s\), 3 worker\(s\)/);
  assert.match(screen, /app\s+#\s+pid\s+status\s+cpu\s+memory\s+heap\s+loop p99\s+req\/s\s+restarts\s+uptime/);
  assert.match(screen, /── web#0 pid \d+ online/, 'the first worker is selected');

  await term.keys('j');
  await term.waitScreen((s) => /── web#1 pid \d+ online/.test(s), 'web#1 selected after j');
  await term.keys('Down');
  screen = await term.waitScreen((s) => /── jobs#0 pid \d+ online/.test(s), 'jobs#0 selected after Down');
  await term.keys('k');
  await term.waitScreen((s) => /── web#1 /.test(s), 'back to web#1 after k');

  // The log pane follows the selected app: a restart of web shows there.
  await request(box, 'restart', { target: ['web'] });
  screen = await term.waitScreen((s) => /web#1 starting -> online pid \d+/.test(s), 'web\'s worker events in the pane');
  assert.match(screen, /── (events|logs and events): web /);
  if (TOPICS.includes('log')) {
    // Where the daemon serves live log lines, the app's output shows in the pane too.
    await httpGet(p1, '/log?msg=hello-from-web');
    await term.waitScreen((s) => /\| hello-from-web/.test(s), 'the app\'s log line');
  }

  // r asks first; n cancels.
  await term.keys('r');
  await term.waitScreen((s) => /reload web .*\? y\/n/.test(s), 'the reload confirmation');
  await term.keys('n');
  await term.waitScreen((s) => /reload cancelled/.test(s), 'cancelled');
  // r then y reloads the selected app (op reload: ready-first, one worker at a time).
  const pidsBefore = (await lsJsonOf(box)).map((w) => w.pid);
  await term.keys('r');
  await term.waitScreen((s) => /reload web .*\? y\/n/.test(s), 'the confirmation again');
  await term.keys('y');
  await term.waitScreen((s) => /^web reloaded/m.test(s), 'web reloaded', 30000);
  const pidsAfter = (await lsJsonOf(box)).map((w) => w.pid);
  assert.ok(pidsAfter.every((p) => !pidsBefore.includes(p)), 'both web workers were replaced');

  await term.resize(70, 20);
  await term.waitScreen((s) => s.split('\n')[0].length <= 70 && /superd monit/.test(s) && s.split('\n').length >= 19, 'a redraw at 70x20');

  await term.keys('q');
  screen = await term.waitScreen((s) => /MONIT-EXIT=0/.test(s), 'a clean exit');
  assert.doesNotMatch(screen, /superd monit/, 'the alternate screen is gone: the terminal is as it was');
});

// The last two tests only watch: they share one daemon running web (2 workers), left as started.
let shared = null;
after(async () => (await shared)?.cleanup());
function watchedWeb() {
  shared ??= (async () => {
    const box = await sandbox({ after: () => {} });
    const port = await freePort();
    box.fixture('loop-lab.js');
    await box.start(box.write('eco.yml', `metrics: { interval: 250ms }\napps:\n  - name: web\n    script: loop-lab.js\n    instances: 2\n    env: { PORT: ${port} }\n`));
    return box;
  })();
  return shared;
}

test('super monit quits on Ctrl-C too', { skip }, async (t) => {
  const box = await watchedWeb();
  const term = tmux(box, t);
  await term.start(`SUPER_HOME=${box.home} ${process.execPath} ${SUPER} monit; echo MONIT-EXIT=$?; sleep 60`);
  await term.waitScreen((s) => /^web\s+0\s+\d+\s+online/m.test(s), 'the app');
  await term.keys('C-c');
  await term.waitScreen((s) => /MONIT-EXIT=0/.test(s) && !/superd monit/.test(s), 'a clean exit on Ctrl-C');
});

test('super monit without a terminal prints one plain snapshot of the worker table and exits 0', async () => {
  const box = await watchedWeb();
  const pids = (await lsJsonOf(box)).map((w) => w.pid);
  // Colours allowed (no NO_COLOR): off a terminal there must be none anyway.
  const r = await box.cli(['monit'], { env: { NO_COLOR: '' } });
  assert.equal(r.code, 0, r.stderr);
  assert.doesNotMatch(r.stdout, /\x1b/, 'no escape sequence at all (styles, alternate screen, cursor)');
  // The note goes to stderr: the pipe gets the table alone.
  assert.match(r.stderr, /^super monit: stdout and stdin are not a terminal, so this is a single snapshot; run it in a terminal for the live dashboard\n$/);
  const lines = r.stdout.trimEnd().split('\n');
  assert.match(lines[0], /^ superd monit {2}1 app\(s\), 2 worker\(s\) {2}daemon pid \d+ /);
  assert.match(lines[1], /^app\s+#\s+pid\s+status\s+cpu\s+memory\s+heap\s+loop p99\s+req\/s\s+restarts\s+uptime\s+cpus$/);
  assert.equal(lines.length, 4, 'the title, the header and one row per worker: nothing else');
  for (const [i, row] of lines.slice(2).entries()) assert.match(row, new RegExp(`^web\\s+${i}\\s+${pids[i]}\\s+online\\s+\\S+\\s+\\S+\\s+\\S+\\s+\\S+\\s+\\S+\\s+0\\s+\\d+s\\s`));
});
