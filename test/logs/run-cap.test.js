// Issue 16: under `super run` (containers) the log files get a default cap, so app output
// cannot fill the container's writable layer; a size the file sets wins.
import test from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { loadEcosystem } from '../../lib/config/index.js';
import { CAPPED } from '../../lib/config/log-settings.js';

test('super run caps log files unless the file sets a size; super start does not', async (t) => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'sd-cap-'));
  t.after(() => fs.rmSync(dir, { recursive: true, force: true }));
  fs.writeFileSync(path.join(dir, 'a.js'), '');
  const file = path.join(dir, 'eco.yml');
  fs.writeFileSync(file, 'apps:\n  - name: plain\n    script: a.js\n  - name: sized\n    script: a.js\n    log_max_size: 1M\n    log_retain: 3\n');
  const logsOf = async (opts) => Object.fromEntries((await loadEcosystem(file, { home: dir, ...opts })).apps.map((a) => [a.name, [a.logs.maxSize, a.logs.retain]]));
  assert.deepEqual(CAPPED, { maxSize: 10 * 1024 * 1024, retain: 1 });
  assert.deepEqual(await logsOf({ capLogs: true }), { plain: [CAPPED.maxSize, 1], sized: [1024 * 1024, 3] });
  assert.deepEqual(await logsOf({}), { plain: [null, 5], sized: [1024 * 1024, 3] });
  fs.writeFileSync(file, 'logs: { max_size: 2M }\napps:\n  - name: plain\n    script: a.js\n');
  assert.deepEqual(await logsOf({ capLogs: true }), { plain: [2 * 1024 * 1024, 1] }, 'logs.max_size is the file\'s own size; retain still capped');
});
