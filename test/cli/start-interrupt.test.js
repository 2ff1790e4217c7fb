// Ctrl-C during `super start`: once the start reached the daemon it is carried through,
// and the CLI says so and reports its outcome; a second Ctrl-C stops waiting and says how
// to see what runs. It never exits silently while the daemon goes on.
import test from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { sandbox, lsJson, watchEvents, SUPER } from '../helpers/harness.js';

/** `super start <file>`, signalled once per entry of `signals` as soon as its app starts. */
async function interruptedStart(box, t, ev, name, signals) {
  const file = box.write(`${name}.yml`, `apps:\n  - { name: ${name}, script: slow.js, wait_ready: true, listen_timeout: 20s }\n`);
  const child = spawn(process.execPath, [SUPER, 'start', file], { env: { ...process.env, SUPER_HOME: box.home, NO_COLOR: '1' }, stdio: ['ignore', 'pipe', 'pipe'] });
  t.after(() => child.kill('SIGKILL'));
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (d) => (stdout += d));
  child.stderr.on('data', (d) => (stderr += d));
  const closed = new Promise((resolve) => child.on('close', (code) => resolve(code)));
  await ev.waitFor((e) => e.app === name && e.state === 'starting', 20000, `${name} starting`);
  for (const signal of signals) {
    const answered = Promise.race([once(child.stderr, 'data'), closed]);
    child.kill(signal);
    await answered; // each signal is answered (on stderr) before the next is sent
  }
  return { code: await closed, stdout: () => stdout, stderr: () => stderr };
}

test('Ctrl-C during super start: carried through and said; twice: stops waiting, says how to see', async (t) => {
  const box = await sandbox(t);
  box.write('idle.js', 'setInterval(() => {}, 1000);\n');
  box.write('slow.js', "setTimeout(() => process.send('ready'), 1500);\nsetInterval(() => {}, 1000);\n");
  await box.start(box.write('boot.yml', 'apps:\n  - { name: boot, script: idle.js, exec_mode: fork }\n'));
  const ev = await watchEvents(box, t);

  const once = await interruptedStart(box, t, ev, 'slow', ['SIGINT']);
  assert.equal(once.code, 0, once.stderr());
  assert.match(once.stderr(), /^super: interrupted: the daemon carries this start through .* waiting for its outcome/m);
  assert.match(once.stdout(), /^started slow$/m);

  const twice = await interruptedStart(box, t, ev, 'slower', ['SIGINT', 'SIGINT']);
  assert.equal(twice.code, 130);
  assert.match(twice.stderr(), /^super: stopped waiting: the daemon finishes the start by itself; `super ls` shows what runs/m);
  await ev.waitFor((e) => e.app === 'slower' && e.state === 'online', 20000, 'slower online');
  const apps = (await lsJson(box)).apps.map((a) => [a.name, a.status]).sort();
  assert.deepEqual(apps, [['boot', 'online'], ['slow', 'online'], ['slower', 'online']]);
});
