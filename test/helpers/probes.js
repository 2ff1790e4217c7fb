// Probes that run while the daemon is under attack (test/hardening): `busy()` is asked
// before each round; each resolves with what it saw once it returns false.
//
// probeLs: `super ls --json` through the CLI must keep succeeding, and the
// daemon must answer `ls` on an open connection in bounded time. The bound is on the
// daemon's answer, not on the CLI's wall time: a CLI process's own start-up is starved by
// whatever else shares the 2 cores (another test file booting 100 workers), the daemon's
// responsiveness is what the test is about.
//
// Both are paced: a probe samples the daemon's health, it must not be the load. Back to
// back, the ls probe spawned a CLI (~0.2 s of CPU) several times a second and the http
// probe kept a worker and the daemon busy, on the very cores the attack and the other
// test files need.
import assert from 'node:assert/strict';
import { performance } from 'node:perf_hooks';
import { httpGet } from './harness.js';

const LS_EVERY_MS = 50; // the daemon's answer, on the open connection
const CLI_EVERY_MS = 1000; // a whole `super ls --json` process (the first round always runs one)
const HTTP_EVERY_MS = 10;
const pause = (ms) => new Promise((r) => setTimeout(r, ms));

/** Resolves {daemonMs: number[], cliMs: number[]} once busy() is false. */
export async function probeLs(box, t, busy) {
  const client = await box.client();
  t.after(() => client.close());
  const daemonMs = [];
  const cliMs = [];
  // Two loops, so the daemon's answers are probed every LS_EVERY_MS even while a CLI
  // process takes seconds to start on a loaded machine.
  const daemonProbe = async () => {
    while (busy()) {
      const s = performance.now();
      const data = await client.request('ls', {}, { timeout: 20000 });
      daemonMs.push(Math.round(performance.now() - s));
      assert.ok(Array.isArray(data.apps), 'ls answered with the apps');
      await pause(LS_EVERY_MS);
    }
  };
  const cliProbe = async () => {
    while (busy()) {
      const s = performance.now();
      const r = await box.cli(['ls', '--json'], { timeout: 20000 });
      cliMs.push(Math.round(performance.now() - s));
      assert.equal(r.code, 0, `super ls failed: ${r.stderr}`);
      await pause(CLI_EVERY_MS);
    }
  };
  await Promise.all([daemonProbe(), cliProbe()]);
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
    await pause(HTTP_EVERY_MS);
  }
  return { served, failures };
}
