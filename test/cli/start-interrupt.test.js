// Ctrl-C during `super start`: once the start reached the daemon it is carried through,
// and the CLI says so and reports its outcome; a second Ctrl-C stops waiting and says how
// to see what runs. It never exits silently while the daemon goes on.
import test from 'node:test';
import assert from 'node:assert/strict';
import { once } from 'node:events';
import { sandbox, lsJson, watchEvents } from '../helpers/harness.js';
import { superProcess } from '../helpers/super-process.js';

/** `super start <file>`, signalled once per entry of `signals` as soon as its app starts. */
async function interruptedStart(box, t, ev, name, signals) {
  const file = box.write(`${name}.yml`, `apps:\n  - { name: ${name}, script: slow.js, wait_ready: true, listen_timeout: 20s }\n`);
  const cli = superProcess(box, t, ['start', file]);
  await ev.waitFor((e) => e.app === name && e.state === 'starting', 20000, `${name} starting`);
  for (const signal of signals) {
    const answered = Promise.race([once(cli.child.stderr, 'data'), cli.exited]);
    cli.child.kill(signal);
    await answered; // each signal is answered (on stderr) before the next is sent
  }
  return { code: (await cli.exited).code, stdout: () => cli.stdout, stderr: () => cli.stderr };
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
