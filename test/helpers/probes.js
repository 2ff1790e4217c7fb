// Probes that run while the daemon is under attack (test/hardening): `busy()` is asked
// before each round; each resolves with what it saw once it returns false.
//
// probeLs: `super ls --json` through the CLI must keep succeeding, and the
// daemon must answer `ls` on an open connection in bounded time. The bound is on the
// daemon's answer, not on the CLI's wall time: a CLI process's own start-up is starved by
// whatever else shares the 2 cores (another test file booting 100 workers), the daemon's
// responsiveness is what the test is about.
import assert from 'node:assert/strict';
import { performance } from 'node:perf_hooks';
import { httpGet } from './harness.js';

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

/** GETs `/` on `port` back to back; resolves {served, failures} (status codes or error messages). */
export async function probeHttp(port, busy) {
  let served = 0;
  const failures = [];
  while (busy()) {
    try {
      const r = await httpGet(port);
      if (r.status === 200) served++;
      else failures.push(r.status);
    } catch (err) {
      failures.push(err.message);
    }
  }
  return { served, failures };
}
