// Each worker leads a process group of its own inside the daemon's session, not a session
// of its own (lib/master/process/exec-prefix.js): stopping it still ends its whole tree,
// and the kernel's autogroups (one CPU group per session) do not separate the daemon from
// its workers on the round-robin handoff (docs/measurements.md, issue 42). Cluster and fork
// mode alike; perl's locale warning and the variable that silences it stay out of the app.
import test from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { spawnSync, execFile } from 'node:child_process';
import { sandbox, alive, groupPids, waitGone, lsJson, SUPER } from '../helpers/harness.js';
import { eventually } from '../helpers/wait.js';

/** pgrp and session of `pid` (/proc/<pid>/stat fields 5 and 6, after the command's parentheses). */
function ids(pid) {
  const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
  const [, , pgrp, session] = stat.slice(stat.lastIndexOf(')') + 2).split(' ').map(Number);
  return { pgrp, session };
}

const APP = `const fs = require('node:fs');
const { spawn } = require('node:child_process');
const child = spawn('sleep', ['1000'], { stdio: 'ignore' }); // stays in the worker's group
fs.writeFileSync(process.env.OUT + '/' + process.pid + '.json', JSON.stringify({ child: child.pid, badlang: process.env.PERL_BADLANG ?? null }));
process.send('ready');
setInterval(() => {}, 1000);
`;

test('a worker leads its own process group in the daemon\'s session; stop ends its grandchild', async (t) => {
  const box = await sandbox(t);
  const out = path.join(box.dir, 'out');
  fs.mkdirSync(out);
  box.write('app.cjs', APP);
  const app = (name, mode) => `  - name: ${name}\n    script: app.cjs\n    exec_mode: ${mode}\n    wait_ready: true\n    kill_timeout: 500ms\n`
    + `    error_file: ${path.join(box.dir, `${name}.err`)}\n    env: { OUT: ${out}, LANG: xx_XX.UTF-8, LC_ALL: xx_XX.UTF-8 }\n`;
  const data = await box.start(box.write('eco.yml', `apps:\n${app('grp-cluster', 'cluster')}${app('grp-fork', 'fork')}`));
  assert.deepEqual(data.failed ?? [], []);
  const daemon = box.daemonPid();
  assert.ok(daemon, 'daemon.pid');
  const daemonSession = ids(daemon).session;
  const trees = [];
  t.after(() => {
    for (const p of trees.flat()) {
      try {
        process.kill(p, 'SIGKILL');
      } catch {}
    }
  });

  for (const name of ['grp-cluster', 'grp-fork']) {
    const files = fs.readdirSync(out);
    const { stdout } = await box.cli(['ls', '--json']);
    const worker = JSON.parse(stdout).apps.find((a) => a.name === name).workers[0].pid;
    assert.ok(files.includes(`${worker}.json`), `${name}: the worker wrote its pids`);
    const { child, badlang } = JSON.parse(fs.readFileSync(path.join(out, `${worker}.json`), 'utf8'));
    trees.push([worker, child]);
    assert.deepEqual(ids(worker), { pgrp: worker, session: daemonSession }, `${name}: leads its group, in the daemon's session (${daemon})`);
    assert.deepEqual(ids(child), { pgrp: worker, session: daemonSession }, `${name}: its child is in its group`);
    assert.equal(badlang, null, `${name}: PERL_BADLANG does not reach the app`);

    assert.equal((await box.cli(['stop', name])).code, 0);
    assert.deepEqual(await waitGone([worker, child], 30000), [], `${name}: stop ends the worker and its grandchild`);
    assert.deepEqual(groupPids(worker), [], `${name}: the group is empty`);
    assert.ok(!alive(child));
    assert.doesNotMatch(fs.readFileSync(path.join(box.dir, `${name}.err`), 'utf8'), /perl|locale/i, `${name}: no warning on the app's stderr`);
  }
});

const noTmux = spawnSync('tmux', ['-V']).status === 0 ? false : 'tmux is not installed (apt-get install tmux)';

// In the daemon's session, on a terminal: the terminal's Ctrl-C goes to its foreground process
// group, `super run` (and its log printer), which stops the apps gracefully; no worker gets it
// behind the daemon's back.
test('Ctrl-C on the terminal of super run reaches the daemon, not its workers', { skip: noTmux }, async (t) => {
  const box = await sandbox(t);
  const out = path.join(box.dir, 'out');
  fs.mkdirSync(out);
  box.write('quiet.cjs', `const fs = require('node:fs');
process.on('SIGINT', () => fs.writeFileSync(process.env.OUT + '/' + process.pid + '.sigint', ''));
process.on('SIGTERM', () => { console.log('bye'); process.exit(0); });
setInterval(() => {}, 1000);
`);
  const app = (name, mode) => `  - { name: ${name}, script: quiet.cjs, exec_mode: ${mode}, kill_signal: SIGTERM, env: { OUT: ${out} } }\n`;
  const eco = box.write('eco.yml', `apps:\n${app('tty-cluster', 'cluster')}${app('tty-fork', 'fork')}`);
  const tmux = (...a) => new Promise((resolve, reject) => execFile('tmux', ['-S', path.join(box.dir, 'tmux.sock'), ...a], (err, o) => (err ? reject(err) : resolve(o))));
  await tmux('new-session', '-d', '-s', 'r', '-x', '120', '-y', '20', `SUPER_HOME=${box.home} NO_COLOR=1 ${process.execPath} ${SUPER} run ${eco} 2>${path.join(box.dir, 'run.err')}; echo RUN-EXIT=$?; sleep 60`);
  const server = Number(await tmux('display-message', '-p', '#{pid}'));
  t.after(() => { try { process.kill(server, 'SIGTERM'); } catch {} });
  let last = null;
  const online = (ls) => ls?.apps.length === 2 && ls.apps.every((a) => a.workers.length === 1 && a.workers[0].status === 'online');
  const ls = await eventually(async () => {
    last = await lsJson(box).catch(() => null);
    return online(last) ? last : null;
  }, { timeout: 20000, what: 'both apps online under super run', last: () => JSON.stringify(last) });
  const workers = ls.apps.flatMap((a) => a.workers.map((w) => w.pid));

  await tmux('send-keys', '-t', 'r', 'C-c');
  let screen = '';
  await eventually(async () => /RUN-EXIT=/.test((screen = await tmux('capture-pane', '-p', '-t', 'r'))), { timeout: 30000, every: 100, what: 'super run to exit', last: () => screen });
  assert.match(screen, /RUN-EXIT=0/, fs.readFileSync(path.join(box.dir, 'run.err'), 'utf8'));
  assert.deepEqual(await waitGone(workers, 30000), []);
  assert.deepEqual(fs.readdirSync(out), [], 'no worker got the terminal\'s SIGINT');
  // The log printer (in the foreground group with `super run`) outlived the Ctrl-C: the
  // workers' last words, written as the daemon stopped them, were printed.
  assert.match(screen, /tty-cluster#0 \| bye$/m);
  assert.match(screen, /tty-fork#0 \| bye$/m);
});
