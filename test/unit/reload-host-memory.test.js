// The surge memory guard's source (lib/master/core/host-memory.js): MemAvailable of a
// meminfo-format file, in bytes; null when the file is missing or does not say.
import test from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { memAvailable } from '../../lib/master/core/host-memory.js';

test('MemAvailable in bytes; null for a missing file or one without the line', async (t) => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'sd-mem-'));
  t.after(() => fs.rmSync(dir, { recursive: true, force: true }));
  const file = (name, text) => {
    fs.writeFileSync(path.join(dir, name), text);
    return path.join(dir, name);
  };
  assert.equal(await memAvailable(file('ok', 'MemTotal:       8000000 kB\nMemFree:  100 kB\nMemAvailable:    2048 kB\n')), 2048 * 1024);
  assert.equal(await memAvailable(file('none', 'MemTotal:       8000000 kB\n')), null);
  assert.equal(await memAvailable(path.join(dir, 'missing')), null);
  assert.ok((await memAvailable('/proc/meminfo')) > 0, 'the host says');
});
