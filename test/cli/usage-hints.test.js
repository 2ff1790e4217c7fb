// Commands that act on apps, run with nothing to act on: one E_USAGE line that says what
// a target looks like (commander alone said "missing required argument 'targets'").
import test from 'node:test';
import assert from 'node:assert/strict';
import { sandbox } from '../helpers/harness.js';

test('stop, reload, restart, delete and reset without a target say what targets look like', async (t) => {
  const box = await sandbox(t);
  await Promise.all(['stop', 'reload', 'restart', 'delete', 'reset'].map(async (command) => {
    const r = await box.cli([command]);
    assert.equal(r.code, 2, `${command}: ${r.stderr}`);
    assert.equal(r.stderr.trim().split('\n').length, 1, r.stderr);
    assert.match(r.stderr, new RegExp(`^super: E_USAGE: super ${command} needs what to ${command}: app names, ids \\(as super ls shows them\\), namespaces, ecosystem files, or "all"; e\\.g\\. super ${command} api`));
  }));
});
