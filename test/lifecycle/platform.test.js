// The daemon runs on Linux only (/proc metrics, taskset, setsid, setpriv): elsewhere it says
// so with a code, before it creates anything in SUPER_HOME.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import { spawnSync } from 'node:child_process';
import { SUPER, sandbox } from '../helpers/harness.js';

// The CLI really runs; only what node reports as the platform is changed, before it loads.
const ON_MACOS = 'data:text/javascript,Object.defineProperty(process,"platform",{value:"darwin"})';

test('super daemon on another platform than Linux: E_PLATFORM, exit 1, nothing started', async (t) => {
  const box = await sandbox(t);
  const r = spawnSync(process.execPath, ['--import', ON_MACOS, SUPER, 'daemon', '--foreground'], {
    encoding: 'utf8',
    env: { ...process.env, SUPER_HOME: box.home },
    timeout: 30000,
  });
  assert.equal(r.status, 1, r.stderr);
  assert.match(r.stderr, /^superd: E_PLATFORM: the superd daemon runs on Linux only \(this is darwin\)/);
  assert.equal(r.stderr.trim().split('\n').length, 1, r.stderr);
  assert.equal(fs.existsSync(`${box.home}/daemon.pid`), false);
  assert.equal(fs.existsSync(`${box.home}/super.sock`), false);
});
