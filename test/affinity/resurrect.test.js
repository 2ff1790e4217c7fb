// Issue 5 with save/resurrect: the dump remembers the daemon's own pin and the workers'
// cpu_affinity, so a resurrected daemon runs pinned as before.
import test from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { sandbox, freePort, lsJson, waitGone, describeJson } from '../helpers/harness.js';
import { ALLOWED, ALL, masksOf } from '../helpers/cpus.js';

const skip = ALLOWED.length < 2 ? 'needs at least 2 CPUs' : false;

test('save keeps daemon.cpu_affinity and cpu_affinity; resurrect pins the daemon and the workers again', { skip }, async (t) => {
  const box = await sandbox(t);
  const port = await freePort();
  box.fixture('threads.js');
  const [a, b] = ALLOWED;
  const eco = box.write('eco.yml', `daemon:\n  cpu_affinity: ${b}\napps:\n  - name: web\n    script: threads.js\n    instances: 2\n    cpu_affinity: spread\n    env: { PORT: ${port} }\n`);
  await box.start(eco);
  assert.equal((await box.cli(['save'])).code, 0);
  const dump = JSON.parse(fs.readFileSync(path.join(box.home, 'dump.json'), 'utf8'));
  assert.equal(dump.daemon_cpu_affinity, String(b));

  const old = box.daemonPid();
  assert.equal((await box.cli(['kill'])).code, 0);
  assert.deepEqual(await waitGone([old]), []);
  const r = await box.cli(['resurrect']);
  assert.equal(r.code, 0, r.stderr);
  assert.notEqual(box.daemonPid(), old);
  assert.deepEqual(masksOf(box.daemonPid()).masks, [String(b)], 'the new daemon pinned itself');
  const web = (await lsJson(box)).apps[0].workers;
  assert.deepEqual(web.map((w) => w.cpus), [String(a), String(b)], 'spread counts every CPU, not the daemon\'s pin');
  assert.deepEqual(web.map((w) => masksOf(w.pid).masks), [[String(a)], [String(b)]]);
  assert.equal((await describeJson(box, 'web')).daemon_cpus, String(b));

  // A dump naming a CPU this daemon may not use is refused, saying which.
  dump.daemon_cpu_affinity = String(ALLOWED.at(-1) + 1);
  fs.writeFileSync(path.join(box.home, 'dump.json'), JSON.stringify(dump));
  assert.equal((await box.cli(['kill'])).code, 0);
  const bad = await box.cli(['resurrect']);
  assert.equal(bad.code, 1);
  assert.match(bad.stderr, new RegExp(`E_DAEMON_PIN: .*dump\\.json pins the daemon to CPUs ${ALLOWED.at(-1) + 1}, but it may only use ${ALL}`));
});
