// A connection the daemon (the cluster primary) hands to a worker that dies, or that
// closes its server, is answered or closed: never left hanging (lib/master/process/handoff-guard.js).
// Without the guard, each scenario below leaves clients hanging until their timeout.
import test from 'node:test';
import assert from 'node:assert/strict';
import { sandbox, freePort, lsJson, watchEvents } from '../helpers/harness.js';
import { startLoad } from '../helpers/load.js';

// A hung connection shows as the strict client's 'timeout' cause.
const HANG_MS = 4000;

async function setup(t, instances) {
  const box = await sandbox(t);
  const port = await freePort();
  box.fixture('http-server.js');
  const file = box.write('eco.yml', `apps:
  - name: web
    script: http-server.js
    instances: ${instances}
    max_restarts: 1000
    env: { PORT: ${port} }
`);
  await box.start(file);
  // New connections all the time: every one goes through the primary's handoff.
  const load = startLoad({ port, connections: 8, keepAlive: false, timeout: HANG_MS, maxMs: 90000 });
  t.after(() => load.stop());
  return { box, load };
}

test('workers SIGKILLed under new-connection load: no connection is left hanging', async (t) => {
  const { box, load } = await setup(t, 3);
  const ev = await watchEvents(box, t);
  for (let k = 0; k < 6; k++) {
    const workers = (await lsJson(box)).apps[0].workers;
    const victim = workers[k % workers.length];
    const from = ev.seen.length; // an earlier replacement of this slot is not this one
    process.kill(victim.pid, 'SIGKILL');
    await ev.waitFor((e) => ev.seen.indexOf(e) >= from && e.slot === victim.slot && e.state === 'online' && e.pid !== victim.pid, 30000, `slot ${victim.slot} back`);
  }
  const r = await load.stop();
  t.diagnostic(`${r.sent} requests, failures ${JSON.stringify(r.errors)}`);
  assert.ok(r.ok > 200, `the load ran (${r.ok} answered)`);
  assert.equal(r.errors.timeout, undefined, `hung connections: ${JSON.stringify(r.errors)}`);
});

test('an app stopped and started under new-connection load: refused or closed, never hanging', async (t) => {
  const { box, load } = await setup(t, 2);
  const client = await box.client();
  t.after(() => client.close());
  for (let k = 0; k < 4; k++) {
    const before = load.stats.ok;
    await client.request('restart', { target: ['web'] }, { timeout: 0 });
    // let the new workers serve before the next stop
    while (load.stats.ok < before + 100) await new Promise((r) => setTimeout(r, 10));
  }
  const r = await load.stop();
  t.diagnostic(`${r.sent} requests, failures ${JSON.stringify(r.errors)}`);
  assert.equal(r.errors.timeout, undefined, `hung connections: ${JSON.stringify(r.errors)}`);
});
