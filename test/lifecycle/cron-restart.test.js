// cron_restart against one real daemon: stop and scale wait for the reload a schedule
// started (bounded) instead of failing with E_BUSY, and a schedule no date matches says so.
import test from 'node:test';
import assert from 'node:assert/strict';
import path from 'node:path';
import { sandbox, freePort, watchEvents, lsJson, FIXTURES } from '../helpers/harness.js';

test('cron_restart every second: stop and scale wait for the running reload; an impossible date is "never"', { timeout: 90000 }, async (t) => {
  const box = await sandbox(t);
  const port = await freePort();
  // ready-api imports superd/worker, which resolves from inside this package: run it in place.
  const script = path.join(FIXTURES, 'apps', 'ready-api.js');
  const eco = box.write('eco.yml', `apps:
  - name: ticker
    script: ${JSON.stringify(script)}
    wait_ready: true
    cron_restart: "* * * * * *"
    env: { PORT: ${port}, WARMUP_MS: 500 }
  - name: feb31
    script: ${JSON.stringify(script)}
    cron_restart: "0 0 31 2 *"
    env: { PORT: ${await freePort()}, WARMUP_MS: 0 }
`);
  await box.start(eco);
  const reloads = await watchEvents(box, t, ['reload']);

  // A reload that began now lasts at least the replacement's 500 ms warm-up.
  const reloading = async () => {
    const seen = reloads.seen.length;
    await reloads.waitFor((e, i = reloads.seen.indexOf(e)) => i >= seen && e.app === 'ticker' && e.step === 'forked', 20000, 'a cron reload of ticker');
  };
  // Asked over an open connection the moment a reload has begun: it is surely running.
  const client = await box.client();
  t.after(() => client.close());
  await reloading();
  const scaled = await client.request('scale', { app: 'ticker', count: '2' }, { timeout: 0 });
  assert.deepEqual([scaled.from, scaled.to], [1, 2]);
  await reloading();
  const stopped = await client.request('stop', { target: ['ticker'] }, { timeout: 0 });
  assert.deepEqual(stopped.apps, ['ticker']);
  const ticker = (await lsJson(box)).apps.find((a) => a.name === 'ticker');
  assert.equal(ticker.status, 'stopped');

  const described = await box.cli(['describe', 'feb31']);
  assert.equal(described.code, 0, described.stderr);
  assert.match(described.stdout, /cron_restart: 0 0 31 2 \*, next run never: no such date/);
});
