// What `super logs` prints to a user: colours on a terminal (and none with NO_COLOR or off
// a terminal), and the "skipped N lines" note when its own output is read too slowly.
import test from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { sandbox, freePort, httpGet, SUPER } from '../helpers/harness.js';

/** Runs `super ...args` under a pseudo-terminal (util-linux script); resolves its output. */
function inTerminal(box, args, env) {
  const cmd = [process.execPath, SUPER, ...args].map((a) => `'${a}'`).join(' ');
  const child = spawn('script', ['-qfec', cmd, '/dev/null'], { env: { ...process.env, SUPER_HOME: box.home, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  child.stdout.on('data', (d) => (out += d));
  child.stderr.on('data', (d) => (out += d));
  return new Promise((resolve, reject) => {
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, out }));
  });
}

test('super logs colours lines on a terminal, not with NO_COLOR, not in a pipe', async (t) => {
  const box = await sandbox(t);
  box.fixture('log-writer.js');
  const eco = box.write('eco.yml', 'apps:\n  - name: web\n    script: log-writer.js\n    ready_on: ready\n    env: { LINES: 4, ERR_EVERY: 2 }\n');
  await box.start(eco);
  const env = { NO_COLOR: '' }; // the harness sets NO_COLOR=1; an empty one means unset

  const coloured = await inTerminal(box, ['logs', 'web', '--lines', '2'], env);
  assert.equal(coloured.code, 0, coloured.out);
  // app name in its colour; stderr's "!" and text in red
  assert.match(coloured.out, /^\x1b\[\d+mweb\x1b\[0m \| L w0 0000003 x+\r$/m);
  assert.match(coloured.out, /^\x1b\[\d+mweb\x1b\[0m \x1b\[31m!\x1b\[0m \x1b\[31mL w0 0000002 x+\x1b\[0m\r$/m);

  const plain = await inTerminal(box, ['logs', 'web', '--lines', '2'], { NO_COLOR: '1' });
  assert.equal(plain.code, 0, plain.out);
  assert.match(plain.out, /^web \| L w0 0000003 x+\r$/m, 'the same lines are there');
  assert.match(plain.out, /^web ! L w0 0000002 x+\r$/m);
  assert.doesNotMatch(plain.out, /\x1b/, 'NO_COLOR: no escape sequence');

  const piped = await box.cli(['logs', 'web', '--lines', '2'], { env });
  assert.match(piped.stdout, /^web \| L w0 0000003 x+$/m);
  assert.doesNotMatch(piped.stdout, /\x1b/, 'not a terminal: no escape sequence');
});

test('super logs -f whose output is not read for a while says how many lines it skipped', async (t) => {
  const box = await sandbox(t);
  const port = await freePort();
  box.fixture('log-writer.js');
  const eco = box.write('eco.yml', `apps:\n  - name: web\n    script: log-writer.js\n    env: { PORT: ${port}, PAD: 200 }\n`);
  await box.start(eco);
  await httpGet(port, '/write?n=1'); // line 0: its tail tells us the CLI follows

  const child = spawn(process.execPath, [SUPER, 'logs', 'web', '--out', '-f', '--lines', '1'], { env: { ...process.env, SUPER_HOME: box.home, NO_COLOR: '1' }, stdio: ['ignore', 'pipe', 'pipe'] });
  t.after(() => child.kill('SIGKILL'));
  let lines = 0;
  let skipped = 0;
  let stderr = '';
  let rest = '';
  let wake = () => {};
  const until = (pred, what, timeout = 60000) => new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`timed out waiting for ${what}: ${lines} lines, skipped ${skipped}, stderr: ${stderr}`)), timeout);
    wake = () => pred() && (clearTimeout(timer), resolve());
    wake();
  });
  child.stdout.on('data', (d) => {
    const parts = (rest + d).split('\n');
    rest = parts.pop();
    lines += parts.filter((l) => /^web \| L w0 \d{7} x+$/.test(l)).length;
    wake();
  });
  child.stderr.on('data', (d) => {
    stderr += d;
    skipped = [...stderr.matchAll(/^super: skipped (\d+) lines of web out: this output was read slower than the app wrote$/gm)].reduce((n, m) => n + Number(m[1]), 0);
    wake();
  });
  await until(() => lines === 1, 'the tail (line 0)');

  // Stop reading the CLI's stdout: the pipe fills, the CLI stops reading the daemon, and
  // the daemon counts instead of queueing while 100,000 lines (~21 MB) are written.
  child.stdout.pause();
  const total = 100000;
  await httpGet(port, `/write?n=${total}`, { timeout: 60000 });
  child.stdout.resume();
  await until(() => lines - 1 + skipped === total, 'every written line printed or counted as skipped');
  assert.ok(skipped > 0, `the CLI said it skipped lines (printed ${lines - 1})`);
  assert.ok(lines - 1 < total, 'not everything was printed');
  child.kill('SIGINT');
  assert.equal(await new Promise((resolve) => child.on('close', resolve)), 0, stderr);
});
