// Issue 5: bad CPU lists are refused with file:line through the CLI (exit 2, nothing
// started); where taskset is missing, apps that ask for pinning are refused and the others run.
import test from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { sandbox, freePort, httpGet, lsJson } from '../helpers/harness.js';
import { ALL, ALLOWED } from '../helpers/cpus.js';
import { which } from '../../lib/which.js';

test('a CPU outside the daemon\'s set and a backwards range: exit 2, file:line:col each, no daemon', async (t) => {
  const box = await sandbox(t);
  box.fixture('idle.js');
  const outside = ALLOWED.at(-1) + 1;
  const eco = box.write('eco.yml', `daemon:\n  cpu_affinity: [0, ${outside}]\napps:\n  - name: a\n    script: idle.js\n    cpu_affinity: "0,3-1"\n`);
  const r = await box.cli(['start', eco]);
  assert.equal(r.code, 2);
  assert.match(r.stderr, /^super: E_CONFIG: 2 problems in /);
  assert.ok(r.stderr.includes(`eco.yml:2:21: daemon.cpu_affinity[1]: CPU ${outside} is outside the CPUs the daemon may use (${ALL}); use CPUs from ${ALL}`), r.stderr);
  assert.ok(r.stderr.includes('eco.yml:6:19: apps[0].cpu_affinity: the range 3-1 runs backwards; write 1-3'), r.stderr);
  assert.equal(fs.existsSync(path.join(box.home, 'daemon.pid')), false);
});

test('without taskset on PATH: pinning is refused with file:line, an app that does not pin runs', async (t) => {
  const box = await sandbox(t);
  // A PATH with setsid and setpriv but no taskset (the CLI and daemon run by absolute path).
  const bin = path.join(box.dir, 'bin');
  fs.mkdirSync(bin);
  for (const tool of ['setsid', 'setpriv']) {
    const found = which(tool);
    if (found) fs.symlinkSync(found, path.join(bin, tool));
  }
  const env = { PATH: bin };
  box.fixture('http-server.js');
  const port = await freePort();
  const pinned = box.write('pinned.yml', 'apps:\n  - name: p\n    script: http-server.js\n    cpu_affinity: spread\n');
  const r = await box.cli(['start', pinned], { env });
  assert.equal(r.code, 2, r.stderr);
  assert.match(r.stderr, /pinned\.yml:4:19: apps\[0\]\.cpu_affinity: CPU pinning needs taskset \(util-linux\), which is not on PATH; remove cpu_affinity, or run superd on Linux with util-linux installed/);

  const plain = box.write('plain.yml', `apps:\n  - name: plain\n    script: http-server.js\n    env: { PORT: ${port} }\n`);
  const ok = await box.cli(['start', plain], { env });
  assert.equal(ok.code, 0, ok.stderr);
  assert.match((await httpGet(port)).body, /app=plain/);
  // The daemon (same PATH) refuses it too, when a client skips the CLI's check.
  const client = await box.client();
  t.after(() => client.close());
  await assert.rejects(client.request('start', { file: pinned }), /** @param {any} err */ (err) => err.code === 'E_CONFIG' && /taskset/.test(err.details.problems[0]));
  assert.deepEqual((await lsJson(box)).apps.map((a) => a.name), ['plain']);
});
