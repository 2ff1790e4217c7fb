// A refused `start` changes nothing: every daemon-wide setting of the file (log files and
// daemon.log rotation, the TCP control listener, the daemon's CPU pin) is checked before
// any is applied. Before, a file refused with E_SCHEDULING_FIXED had already created its
// apps' log files, changed daemon.log's rotation and opened its control listener.
import test from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { sandbox, freePort, lsJson } from '../helpers/harness.js';
import { ALLOWED, ALL, masksOf } from '../helpers/cpus.js';
import { eventually } from '../helpers/wait.js';

const rotationLines = (home) => fs.readFileSync(path.join(home, 'daemon.log'), 'utf8').split('\n').filter(Boolean)
  .map((l) => JSON.parse(l)).filter((r) => r.msg === 'daemon.log rotation set by the file\'s logs:');

/** Whether something accepts TCP connections on 127.0.0.1:port. */
const listening = (port) => new Promise((resolve) => {
  const s = net.connect(port, '127.0.0.1');
  s.once('connect', () => s.destroy() || resolve(true));
  s.once('error', () => resolve(false));
});

test('a start refused with E_SCHEDULING_FIXED creates no log file, leaves daemon.log rotation, the control listener and the pin as they were', async (t) => {
  const box = await sandbox(t);
  box.fixture('idle.js');
  const first = box.write('os.yml', 'scheduling: os\napps:\n  - name: first\n    script: idle.js\n    ready_on: spawn\n');
  await box.start(first);

  const controlPort = await freePort();
  const pin = ALLOWED.length >= 2 ? `daemon:\n  cpu_affinity: ${ALLOWED[1]}\n` : '';
  const refused = box.write('rr.yml', `scheduling: round-robin\n${pin}logs:\n  max_size: 1K\n  retain: 0\n`
    + `control:\n  listen: 127.0.0.1:${controlPort}\napps:\n  - name: refused\n    script: idle.js\n    ready_on: spawn\n`);
  const r2 = await box.cli(['start', refused]);
  assert.equal(r2.code, 2, r2.stderr);
  assert.match(r2.stderr, /^super: E_SCHEDULING_FIXED: /);

  const logs = path.join(box.home, 'logs');
  assert.deepEqual(fs.readdirSync(logs).sort(), ['first-err.log', 'first-out.log'], 'no log file of the refused app');
  assert.equal(await listening(controlPort), false, 'no control listener opened');
  assert.deepEqual(masksOf(box.daemonPid()).masks, [ALL], 'the daemon is not pinned');
  assert.deepEqual((await lsJson(box)).apps.map((a) => a.name), ['first']);

  // A file the daemon accepts sets the rotation, and says so in daemon.log: the only
  // rotation ever set is that one, not the refused file's 1K.
  const accepted = box.write('ok.yml', 'scheduling: os\nlogs:\n  max_size: 2M\n  retain: 3\napps:\n  - name: second\n    script: idle.js\n    ready_on: spawn\n');
  await box.start(accepted);
  await eventually(() => rotationLines(box.home).length > 0, { what: 'the rotation line in daemon.log' });
  assert.deepEqual(rotationLines(box.home).map((r) => [r.max_size, r.retain, r.file]), [[2 * 1024 * 1024, 3, accepted]]);
  assert.ok(fs.existsSync(path.join(logs, 'second-out.log')), 'an accepted start creates its log files');
});
