// What `super logs` prints to a user: colours on a terminal (and none with NO_COLOR or off
// a terminal), and the "skipped N lines" note when its own output is read too slowly.
import test from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { sandbox, freePort, httpGet, SUPER } from '../helpers/harness.js';
import { superProcess } from '../helpers/super-process.js';

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

  const cli = superProcess(box, t, ['logs', 'web', '--out', '-f', '--lines', '1']);
  // Counted as they come: 100,000 lines are too many to scan again on each chunk.
  let lines = 0;
  let counted = 0;
  const printed = () => {
    for (; counted < cli.lines.length; counted++) if (/^web \| L w0 \d{7} x+$/.test(cli.lines[counted])) lines++;
    return lines;
  };
  const skipped = () => [...cli.stderr.matchAll(/^super: skipped (\d+) lines of web out: this output was read slower than the app wrote$/gm)].reduce((n, m) => n + Number(m[1]), 0);
  const until = (pred, what) => cli.until(pred, { timeout: 60000, what: `${what} (${lines} lines, skipped ${skipped()})` });
  await until(() => printed() === 1, 'the tail (line 0)');

  // Stop reading the CLI's stdout: the pipe fills, the CLI stops reading the daemon, and
  // the daemon counts instead of queueing while 100,000 lines (~21 MB) are written.
  cli.child.stdout.pause();
  const total = 100000;
  await httpGet(port, `/write?n=${total}`, { timeout: 60000 });
  cli.child.stdout.resume();
  await until(() => printed() - 1 + skipped() === total, 'every written line printed or counted as skipped');
  assert.ok(skipped() > 0, `the CLI said it skipped lines (printed ${lines - 1})`);
  assert.ok(lines - 1 < total, 'not everything was printed');
  assert.equal((await cli.stop('SIGINT')).code, 0, cli.stderr);
});
