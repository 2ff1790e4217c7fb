// Issue 14 item 8: a "billion laughs" YAML (nine aliases of nine aliases ... of a list: a
// few hundred bytes, 9^10 values once expanded) re-read by `super reload` is refused with
// E_CONFIG, and is read off the daemon's event loop: the daemon answers `ls` and the app
// serves while it happens.
import test from 'node:test';
import assert from 'node:assert/strict';
import { performance } from 'node:perf_hooks';
import { sandbox, freePort, lsJson } from '../helpers/harness.js';
import { probeLs, probeHttp } from '../helpers/probes.js';

/** The app `web` of `good`, with a 9^levels-value anchor chain in its env. */
function laughs(good, levels) {
  let t = `${good}      L0: &l0 ["lol","lol","lol","lol","lol","lol","lol","lol","lol"]\n`;
  for (let i = 1; i < levels; i++) t += `      L${i}: &l${i} [${Array(9).fill(`*l${i - 1}`).join(',')}]\n`;
  return t;
}

test('a billion-laughs YAML on reload: E_CONFIG, the daemon answers and the app serves', { timeout: 90000 }, async (t) => {
  const box = await sandbox(t);
  const port = await freePort();
  box.fixture('http-server.js');
  const good = `apps:\n  - name: web\n    script: http-server.js\n    env:\n      PORT: ${port}\n`;
  const eco = box.write('eco.yml', good);
  assert.equal((await box.cli(['start', eco])).code, 0);
  const before = (await lsJson(box)).apps[0].workers.map((w) => w.pid);
  box.write('eco.yml', laughs(good, 10));

  let reloading = true;
  const busy = () => reloading;
  const probes = Promise.all([probeLs(box, t, busy), probeHttp(port, busy)]);
  const t0 = performance.now();
  const r = await box.cli(['reload', 'web']).finally(() => (reloading = false));
  const ms = Math.round(performance.now() - t0);
  const [{ daemonMs }, { served, failures }] = await probes;
  t.diagnostic(`reload refused in ${ms} ms; ls answers during it: ${daemonMs}; web served ${served}`);
  assert.equal(r.code, 2, `refused as bad input: ${r.stdout}${r.stderr}`);
  assert.match(r.stderr, /E_CONFIG/);
  assert.match(r.stderr, /YAML aliases/);
  assert.deepEqual(failures, [], 'the app never failed');
  assert.deepEqual((await lsJson(box)).apps[0].workers.map((w) => w.pid), before, 'the running worker was not touched');
});
