// What the worker agent (lib/worker/agent.cjs) does while a worker boots, paid by every
// start, crash restart and reload replacement: only what the worker needs before its first
// request, report or line. node:perf_hooks, the public API module, the line formatter and
// process.stdout/stderr come with their first use, and then work as before.
import test from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fork } from 'node:child_process';
import { once } from 'node:events';
import { fileURLToPath } from 'node:url';

const AGENT = fileURLToPath(new URL('../../lib/worker/agent.cjs', import.meta.url));

// Run with the agent preloaded and an IPC channel, as a superd worker: says what was
// loaded before the app ran, then uses what was deferred.
const APP = `
const loaded = () => ({
  perfHooks: process.moduleLoadList.includes('NativeModule perf_hooks'),
  files: Object.keys(require.cache).map((f) => require('node:path').basename(f)).sort(),
  stdoutGetter: Object.getOwnPropertyDescriptor(process, 'stdout').get.name, // Node's: getStdout
});
const atBoot = loaded();
console.log('first line');
process.stdout.write('second line\\n');
process.send({ atBoot, superd: { isSuperd: globalThis.superd.isSuperd(), slot: globalThis.superd.slot() } });
process.on('message', (m) => {
  if (m !== 'done') return;
  process.send({ afterUse: loaded() }, () => process.exit(0));
});
`;

test('the agent loads at boot only what a worker needs before its first use, the rest on first use', async (t) => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'superd-agent-boot-'));
  t.after(() => fs.rmSync(dir, { recursive: true, force: true }));
  const out = path.join(dir, 'out.log');
  const err = path.join(dir, 'err.log');
  const fds = [fs.openSync(out, 'a'), fs.openSync(err, 'a')];
  const env = {
    ...process.env,
    SUPER_APP_NAME: 'boot',
    SUPER_SLOT: '3',
    SUPER_METRICS_INTERVAL: '1000',
    SUPER_LOG: JSON.stringify({ out, err, type: 'raw', date: null, app: 'boot', slot: 3 }),
  };
  const child = fork('-e', [APP], { execArgv: ['--require', AGENT], env, stdio: ['ignore', fds[0], fds[1], 'ipc'] });
  const exited = once(child, 'exit');
  t.after(() => child.kill('SIGKILL'));
  fds.forEach((fd) => fs.closeSync(fd));

  const messages = [];
  const next = () => new Promise((resolve) => child.once('message', resolve));
  messages.push(await next());
  // A report asked by the daemon: node:perf_hooks and the histograms come now.
  child.send({ cmd: 'super:report' });
  const report = await next();
  assert.equal(report.cmd, 'super:metrics');
  assert.equal(typeof report.data.elu, 'number');
  assert.equal(report.data.loop.max, 0);
  child.send('done');
  messages.push(await next());
  await exited;

  const [{ atBoot, superd }, { afterUse }] = messages;
  assert.equal(atBoot.perfHooks, false, 'node:perf_hooks is not loaded at boot');
  assert.deepEqual(atBoot.files, ['agent-protocol.cjs', 'agent.cjs', 'connections.cjs', 'daemon-channel.cjs', 'drain.cjs', 'expose-api.cjs', 'log-format.cjs', 'metrics.cjs']);
  assert.notEqual(atBoot.stdoutGetter, 'getStdout', 'process.stdout is not made at boot');
  assert.deepEqual(superd, { isSuperd: true, slot: 3 });
  assert.equal(afterUse.perfHooks, true);
  assert.equal(afterUse.stdoutGetter, 'getStdout', "Node's getter is back once the stream is made");
  assert.ok(afterUse.files.includes('index.cjs') && afterUse.files.includes('raw-lines.cjs'), afterUse.files.join(' '));
  assert.ok(!afterUse.files.includes('line-formats.cjs'), 'raw lines need no formatter');
  assert.equal(fs.readFileSync(out, 'utf8'), 'first line\nsecond line\n');
});
