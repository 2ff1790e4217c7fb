// A dump over the app limit (SUPER_MAX_APPS) is refused by `super resurrect` before it
// launches a daemon: no daemon is left running with nothing to run.
import test from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { sandbox } from '../helpers/harness.js';

test('a dump over the app limit: E_DUMP, and no daemon launched', async (t) => {
  const box = await sandbox(t);
  const script = box.fixture('idle.js');
  const app = (name) => ({ config: { name, script, instances: 1 }, clientEnv: {} });
  fs.mkdirSync(box.home, { mode: 0o700 });
  fs.writeFileSync(path.join(box.home, 'dump.json'), JSON.stringify({ superd: 1, apps: [app('a'), app('b')] }), { mode: 0o600 });
  const r = await box.cli(['resurrect'], { env: { SUPER_MAX_APPS: '1' } });
  assert.equal(r.code, 1, r.stderr);
  assert.match(r.stderr, /^super: E_DUMP: .*dump\.json lists 2 apps, more than the limit of 1; nothing was started/m);
  assert.equal(box.daemonPid(), null, 'no daemon.pid');
  assert.equal(fs.existsSync(path.join(box.home, 'super.sock')), false, 'no daemon socket');
});
