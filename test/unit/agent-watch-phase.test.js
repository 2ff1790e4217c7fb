// A watched agent (lib/worker/metrics.cjs) reports on the wall clock's multiples of its
// interval, whenever it was told to watch: every worker of the host reports in the same
// moment, so the daemon reads them in a burst of a few wakeups, not one per worker.
import test from 'node:test';
import assert from 'node:assert/strict';
import { fork } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const AGENT = fileURLToPath(new URL('../../lib/worker/agent.cjs', import.meta.url));
const INTERVAL = 400;

test('watched reports come on multiples of the interval, whatever the moment WATCH came', async (t) => {
  const inherited = Object.fromEntries(Object.entries(process.env).filter(([k]) => k !== 'SUPER_LOG'));
  const env = { ...inherited, SUPER_APP_NAME: 'phase', SUPER_SLOT: '0', SUPER_METRICS_INTERVAL: String(INTERVAL) };
  const child = fork('-e', ['setInterval(() => {}, 1000)'], { execArgv: ['--require', AGENT], env, stdio: ['ignore', 'ignore', 'inherit', 'ipc'] });
  t.after(() => child.kill('SIGKILL'));
  await new Promise((resolve) => child.once('spawn', resolve));
  // Told to watch half-way between two multiples: a timer started then would report at
  // that phase (about INTERVAL / 2), an aligned one near 0.
  await new Promise((resolve) => setTimeout(resolve, INTERVAL * 1.5 - (Date.now() % INTERVAL)));
  const phases = [];
  const reports = new Promise((resolve) => {
    child.on('message', (/** @type {any} */ m) => {
      if (m?.cmd !== 'super:metrics') return;
      phases.push(Date.now() % INTERVAL);
      if (phases.length === 3) resolve();
    });
  });
  child.send({ cmd: 'super:watch' });
  await reports;
  child.send({ cmd: 'super:unwatch' });
  // The receive time is the report's plus the IPC hop and any lateness of a loaded machine.
  const median = phases.sort((a, b) => a - b)[1];
  assert.ok(median < INTERVAL / 4, `reports at ${phases.join(', ')} ms past a multiple of ${INTERVAL} ms`);
});
