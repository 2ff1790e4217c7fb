// Every command's output is complete when it goes to a pipe that is read slowly: a pipe
// holds 64 KiB, and a CLI that exits before its stdout and stderr have drained loses the
// rest (`super logs app --lines 2000 | wc -c` gave 131,072 of 154,890 bytes).
import test from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { spawn, execFileSync } from 'node:child_process';
import { once } from 'node:events';
import { sandbox, SUPER } from '../helpers/harness.js';

const PIPE_BYTES = 64 * 1024;
const SLOW_READ_MS = 200; // a CLI that does not wait for its full pipe exits well within this

/**
 * Runs `super ...args` with stdout and stderr on real pipes (FIFOs: the pipes node's spawn
 * makes are socket pairs, which hold far more than 64 KiB) that nobody reads until the CLI
 * has filled one (its /proc/<pid>/io counts the bytes it wrote) and then exited or waited
 * SLOW_READ_MS, then reads them to the end.
 */
async function slowPipe(box, args) {
  const ends = ['out', 'err'].map((name) => {
    const fifo = path.join(box.dir, `${name}-${process.hrtime.bigint()}.fifo`);
    execFileSync('mkfifo', [fifo]);
    // The read end first, without blocking, so that opening the write end does not block.
    const reader = fs.openSync(fifo, fs.constants.O_RDONLY | fs.constants.O_NONBLOCK);
    return { reader, writer: fs.openSync(fifo, 'w') };
  });
  const child = spawn(process.execPath, [SUPER, ...args], { env: { ...process.env, SUPER_HOME: box.home, NO_COLOR: '1' }, stdio: ['ignore', ends[0].writer, ends[1].writer] });
  for (const e of ends) fs.closeSync(e.writer);
  let gone = false;
  const exited = once(child, 'exit').finally(() => (gone = true));
  const timer = setTimeout(() => child.kill('SIGKILL'), 60000);
  while (!gone && written(child.pid) < PIPE_BYTES) await new Promise((r) => setTimeout(r, 20));
  await Promise.race([exited, new Promise((r) => setTimeout(r, SLOW_READ_MS))]);
  const read = (fd) => new net.Socket({ fd, readable: true, writable: false }).setEncoding('utf8').toArray().then((parts) => parts.join(''));
  const [stdout, stderr, [code]] = await Promise.all([read(ends[0].reader), read(ends[1].reader), exited]);
  clearTimeout(timer);
  return { code, stdout, stderr };
}

/** Bytes `pid` has written so far (0 once it is gone). */
function written(pid) {
  try {
    return Number(/^wchar: (\d+)$/m.exec(fs.readFileSync(`/proc/${pid}/io`, 'utf8'))[1]);
  } catch {
    return 0;
  }
}

test('logs, ls --json, jlist, describe --json and env print all of a large output into a slow pipe', async (t) => {
  const box = await sandbox(t);
  box.fixture('log-writer.js');
  const LINES = 2500; // ~300 KB of log lines
  // Six 40 KB variables (well under the kernel's 128 KiB a variable): env and describe are ~240 KB.
  const big = Object.fromEntries(Array.from({ length: 6 }, (_, i) => [`BIG_${i}`, String(i).repeat(40000)]));
  // Apps never started make `ls` long and cost nothing: 400 names of 64 characters.
  const idle = Array.from({ length: 400 }, (_, i) => `  - { name: ${`idle-${i}-`.padEnd(64, 'n')}, script: log-writer.js, autostart: false }\n`).join('');
  const env = JSON.stringify({ LINES, PAD: 100, ...big });
  const eco = box.write('eco.yml', `apps:\n  - name: web\n    script: log-writer.js\n    ready_on: ready\n    env: ${env}\n${idle}`);
  await box.start(eco);

  await t.test('logs --lines', async () => {
    const logs = await slowPipe(box, ['logs', 'web', '--out', '--lines', String(LINES)]);
    assert.equal(logs.code, 0, logs.stderr);
    const lines = logs.stdout.split('\n');
    assert.equal(lines.pop(), '', `the output ends with a whole line (${logs.stdout.length} bytes)`);
    assert.equal(lines.length, LINES, 'every line arrived');
    assert.match(lines.at(-1), new RegExp(`^web \\| L w0 ${String(LINES - 1).padStart(7, '0')} x{100}$`));
  });

  for (const args of [['jlist'], ['ls', '--json'], ['prettylist']]) {
    await t.test(args.join(' '), async () => {
      const out = await slowPipe(box, args);
      assert.equal(out.code, 0, out.stderr);
      assert.ok(out.stdout.length > 64 * 1024, `${out.stdout.length} bytes, more than a pipe holds`);
      assert.equal(JSON.parse(out.stdout).apps.length, 401, 'complete JSON');
    });
  }

  await t.test('describe --json', async () => {
    const described = await slowPipe(box, ['describe', 'web', '--json']);
    assert.equal(described.code, 0, described.stderr);
    assert.equal(JSON.parse(described.stdout).config.env.BIG_5, big.BIG_5, 'complete JSON');
  });

  await t.test('env', async () => {
    const printed = await slowPipe(box, ['env', 'web']);
    assert.equal(printed.code, 0, printed.stderr);
    const vars = new Set(printed.stdout.split('\n'));
    for (const [k, v] of Object.entries(big)) assert.ok(vars.has(`${k}=${v}`), `${k} printed whole (${printed.stdout.length} bytes)`);
  });
});

test('a long list of problems reaches a slow stderr pipe whole (no daemon)', async (t) => {
  const box = await sandbox(t);
  // Long unknown keys make a long list however many problems are shown.
  const keys = Array.from({ length: 40 }, (_, i) => `    unknown_${i}_${'k'.repeat(3000)}: 1\n`).join('');
  const eco = box.write('eco.yml', `apps:\n  - name: web\n    script: app.js\n${keys}`);
  const out = await slowPipe(box, ['start', eco]);
  assert.equal(out.code, 2, out.stderr.slice(0, 300));
  assert.ok(out.stderr.length > 64 * 1024, `${out.stderr.length} bytes, more than a pipe holds`);
  assert.match(out.stderr, /^super: E_CONFIG: /);
  assert.match(out.stderr, /apps\[0\]\.unknown_39_k{3000}: unknown key[^\n]*\n$/, 'the last problem arrived whole');
});
