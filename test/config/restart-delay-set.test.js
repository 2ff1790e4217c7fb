// restart_delay_set tells the restart policy whether the file chose a restart delay
// (lib/master/apps/restart-policy.js applies its built-in crash-loop backoff only when not).
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, test } from 'node:test';
import { loadEcosystemText } from '../../lib/config/index.js';

const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'superd-config-'));
after(() => fs.rmSync(tmp, { recursive: true, force: true }));
fs.writeFileSync(path.join(tmp, 'app.js'), '');

test('restart_delay_set: true when either delay key is written, even as 0', () => {
  const { apps } = loadEcosystemText(`
apps:
  - { name: unset, script: app.js }
  - { name: zero, script: app.js, restart_delay: 0 }
  - { name: fixed, script: app.js, restart_delay: 1s }
  - { name: expoff, script: app.js, exp_backoff_restart_delay: 0 }
  - { name: exp, script: app.js, exp_backoff_restart_delay: 100ms }
`, path.join(tmp, 'eco.yml'), { cpus: 4 });
  assert.deepEqual(apps.map((a) => [a.name, a.restart_delay_set, a.restart_delay, a.exp_backoff_restart_delay]), [
    ['unset', false, 0, 0],
    ['zero', true, 0, 0],
    ['fixed', true, 1000, 0],
    ['expoff', true, 0, 0],
    ['exp', true, 0, 100],
  ]);
});
