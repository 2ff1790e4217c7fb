// Issue 20, `super start <file>` on a running daemon: the CLI asks the daemon (`warm-reader`)
// to start the thread that reads ecosystem files as soon as it connects, so the thread
// boots while the CLI still checks the file, not after the file is sent.
import test from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import { sandbox, freePort, httpGet } from '../helpers/harness.js';
import { eventually } from '../helpers/wait.js';
import { ensureDaemon } from '../../lib/ctl/launch-daemon.js';

const threadsOf = (pid) => fs.readdirSync(`/proc/${pid}/task`).length;

const waitFor = (check, what, timeout = 5000) => eventually(check, { what, timeout, every: 20 });

test('warm-reader: a running daemon starts its file reader thread on request; start <file> still runs', { timeout: 60000 }, async (t) => {
  const box = await sandbox(t);
  box.fixture('http-server.js');
  // A daemon that has read no file and started no app (no reader thread).
  (await ensureDaemon(box.home)).close();
  const daemon = box.daemonPid();
  const before = threadsOf(daemon);

  const client = await box.client();
  try {
    assert.deepEqual(await client.request('warm-reader'), {});
  } finally {
    client.close();
  }
  await waitFor(() => threadsOf(daemon) > before, `a reader thread beside the daemon's ${before} threads`);

  const p2 = await freePort();
  const eco = box.write('web.yml', `apps:\n  - name: web\n    script: http-server.js\n    env: { PORT: ${p2} }\n`);
  const r = await box.cli(['start', eco]);
  assert.equal(r.code, 0, r.stderr);
  assert.match(r.stdout, /^started web\n/);
  assert.match((await httpGet(p2)).body, /app=web/);
});
