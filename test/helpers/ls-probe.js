// While `busy()` holds: `super ls --json` through the CLI must keep succeeding, and the
// daemon must answer `ls` on an open connection in bounded time. The bound is on the
// daemon's answer, not on the CLI's wall time: a CLI process's own start-up is starved by
// whatever else shares the 2 cores (another test file booting 100 workers), the daemon's
// responsiveness is what the test is about.
import assert from 'node:assert/strict';
import { performance } from 'node:perf_hooks';

/** Resolves {daemonMs: number[], cliMs: number[]} once busy() is false. */
export async function probeLs(box, t, busy) {
  const client = await box.client();
  t.after(() => client.close());
  const daemonMs = [];
  const cliMs = [];
  while (busy()) {
    let s = performance.now();
    const data = await client.request('ls', {}, { timeout: 20000 });
    daemonMs.push(Math.round(performance.now() - s));
    assert.ok(Array.isArray(data.apps), 'ls answered with the apps');
    s = performance.now();
    const r = await box.cli(['ls', '--json'], { timeout: 20000 });
    cliMs.push(Math.round(performance.now() - s));
    assert.equal(r.code, 0, `super ls failed: ${r.stderr}`);
  }
  return { daemonMs, cliMs };
}
