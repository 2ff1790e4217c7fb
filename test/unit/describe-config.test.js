// `super describe`'s settings block: the defaults it compares against are lib/config's,
// durations and sizes read as people write them, and the daemon's bookkeeping is not shown.
import test from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { loadEcosystemText } from '../../lib/config/index.js';
import { DEFAULTS, INTERNAL, humanDuration, humanSize, settingsLines } from '../../lib/describe-config.js';

function load(t, entry) {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'superd-describe-'));
  t.after(() => fs.rmSync(dir, { recursive: true, force: true }));
  fs.writeFileSync(path.join(dir, 'app.js'), '');
  return loadEcosystemText(`apps:\n  - { name: web, script: app.js${entry} }\n`, path.join(dir, 'eco.yml'), { cpus: 2, home: dir }).apps[0];
}

test('DEFAULTS is what lib/config gives an app that sets nothing', (t) => {
  const app = load(t, '');
  for (const [key, v] of Object.entries(DEFAULTS)) assert.deepEqual(app[key], v, key);
  // and it knows every key lib/config gives (a new key is not shown as "set" by everyone)
  const own = new Set(['script', 'cwd', 'env']);
  assert.deepEqual(Object.keys(app).filter((k) => !own.has(k) && !INTERNAL.has(k) && !Object.hasOwn(DEFAULTS, k)), []);
});

test('durations and sizes in the units people write', () => {
  assert.deepEqual([250, 1000, 1600, 8000, 120000, 5400000, 1234].map(humanDuration), ['250ms', '1s', '1.6s', '8s', '2m', '1.5h', '1.234s']);
  assert.deepEqual([1000, 1536, 314572800, 1073741824].map(humanSize), ['1000', '1.5K', '300M', '1G']);
});

test('what the file set, then the defaults; no internal fields, the backoff named', (t) => {
  const app = load(t, ', instances: max, kill_timeout: 5s, max_memory_restart: 300M, env: { A: "x y" }');
  const lines = settingsLines({ ...app });
  const text = lines.join('\n');
  assert.match(text, /^ {2}instances: 2 \(max as written\)$/m);
  assert.match(text, /^ {2}kill_timeout: 5s$/m);
  assert.match(text, /^ {2}max_memory_restart: 300M$/m);
  assert.match(text, /^ {2}env: A="x y"$/m);
  const defaults = lines.slice(lines.findIndex((l) => l.startsWith('  defaults: '))).join(' ');
  assert.match(defaults, /restart_delay: crash-loop backoff .* listen_timeout 8s,/);
  assert.ok(lines.every((l) => l.length <= 100), 'wrapped');
  for (const hidden of ['restart_delay_set', 'instances_spec', 'source', 'logs', 'out_file', 'error_file']) assert.doesNotMatch(text, new RegExp(`\\b${hidden}\\b`), hidden);
  const explicit = settingsLines({ ...load(t, ', restart_delay: 0') }).join('\n');
  assert.match(explicit, /restart_delay 0ms/);
  assert.doesNotMatch(explicit, /crash-loop backoff/);
});
