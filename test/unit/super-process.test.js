// test/helpers/super-process.js: a wait for a line resolves with it, and a wait for a line
// that never comes fails as the command ends, with its output, not after the timeout.
// `super --version` needs no daemon and exits at once.
import test from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { superProcess } from '../helpers/super-process.js';
import { ROOT } from '../helpers/harness.js';

const { version } = JSON.parse(fs.readFileSync(path.join(ROOT, 'package.json'), 'utf8'));

test('superProcess: a line printed resolves; a line never printed fails when the command ends', async (t) => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'super-process-'));
  t.after(() => fs.rmSync(dir, { recursive: true, force: true }));
  const box = { home: path.join(dir, 'home'), dir };

  const cli = superProcess(box, t, ['--version']);
  assert.equal(await cli.line((l) => l === version), version);
  assert.deepEqual(await cli.exited, { code: 0, signal: null });
  assert.deepEqual(cli.lines, [version]);

  // Failed at the exit (its message says so), not at the 20 s timeout.
  const never = superProcess(box, t, ['--version']);
  await assert.rejects(never.line(/never printed/, { timeout: 20000 }), /** @param {any} err */ (err) => /ended \(0\) before a line \/never printed\//.test(err.message) && err.message.includes(version));
});
