// Dated rotation (log_rotate), file by file: the names by day, hour and minute, a second
// rotation in the same period, and pruning by count (newest kept) and by age.
import test from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { periodStamp, moveDated, pruneRotated, rotatedFiles } from '../../lib/logs/rotate.js';

test('periodStamp: local date by day, hour or minute', () => {
  const ms = new Date(2026, 10, 3, 4, 5, 6).getTime();
  assert.equal(periodStamp(ms, 'day'), '2026-11-03');
  assert.equal(periodStamp(ms, 'hour'), '2026-11-03_04');
  assert.equal(periodStamp(ms, 'minute'), '2026-11-03_04-05');
});

test('moveDated takes the first free name; pruneRotated keeps the newest by count, drops the old by age', async (t) => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'sd-dated-'));
  t.after(() => fs.rmSync(dir, { recursive: true, force: true }));
  const file = path.join(dir, 'api-out.log');
  const names = [];
  for (let i = 0; i < 3; i++) {
    fs.writeFileSync(file, `period ${i}\n`);
    names.push(path.basename(await moveDated(file, '2026-11-23')));
  }
  assert.deepEqual(names, ['api-out.2026-11-23.log', 'api-out.2026-11-23.1.log', 'api-out.2026-11-23.2.log']);
  fs.writeFileSync(path.join(dir, 'api-out.2026-11-22.log.gz'), '');
  fs.writeFileSync(path.join(dir, 'api-out.log.1'), '');
  fs.writeFileSync(path.join(dir, 'api-err.2026-11-23.log'), 'another file\'s\n');
  const day = 86400000;
  const age = (name, days) => fs.utimesSync(path.join(dir, name), new Date(Date.now() - days * day), new Date(Date.now() - days * day));
  age('api-out.2026-11-22.log.gz', 1.5);
  age('api-out.log.1', 30);
  age('api-out.2026-11-23.log', 0.3);
  age('api-out.2026-11-23.1.log', 0.2);
  assert.deepEqual((await rotatedFiles(file)).map((p) => path.basename(p)).sort(),
    ['api-out.2026-11-22.log.gz', 'api-out.2026-11-23.1.log', 'api-out.2026-11-23.2.log', 'api-out.2026-11-23.log', 'api-out.log.1']);

  const dropped = await pruneRotated(file, { retain: 3, retainDays: 7 }, Date.now());
  assert.deepEqual(dropped.map((p) => path.basename(p)).sort(), ['api-out.2026-11-22.log.gz', 'api-out.log.1'],
    'the oldest dated file beyond 3 (count), the numbered one older than 7 days (age)');
  assert.deepEqual(fs.readdirSync(dir).sort(), ['api-err.2026-11-23.log', 'api-out.2026-11-23.1.log', 'api-out.2026-11-23.2.log', 'api-out.2026-11-23.log']);
});
