// Resurrect's fallback: an app config saved in dump.json goes through lib/config again
// (loadSavedApp), so a dump of any earlier version comes back in today's shape.
import assert from 'node:assert/strict';
import path from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { loadEcosystem, loadSavedApp } from '../../lib/config/index.js';

const dir = fileURLToPath(new URL('../fixtures/good-config/', import.meta.url));
const at = (...p) => path.join(dir, ...p);
const DUMP = '/home/u/.super/dump.json';
const plain = (o) => JSON.parse(JSON.stringify(o));
const without = (o, ...keys) => Object.fromEntries(Object.entries(o).filter(([k]) => !keys.includes(k)));

test('a saved config normalizes back to the config it was, logs and delays included', async () => {
  const options = { cpus: 4, env: 'production', home: '/home/u/.super' };
  for (const app of (await loadEcosystem(at('full.yml'), options)).apps) {
    const again = loadSavedApp(plain(app), DUMP, { cpus: 4, home: '/home/u/.super' });
    assert.ok(Object.isFrozen(again) && Object.isFrozen(again.logs));
    // instances_spec: the count it ran with; source: the dump it came from.
    assert.deepEqual(without(again, 'instances_spec', 'source'), without(app, 'instances_spec', 'source'), app.name);
    assert.equal(again.instances_spec, app.instances);
    assert.equal(again.source.file, DUMP);
  }
});

test('a config saved before restart_delay_set and logs existed: 0/0 is the built-in backoff, a set delay is kept', async () => {
  const [app] = (await loadEcosystem(at('minimal.yml'), { cpus: 1 })).apps;
  const old = (o) => ({ ...without(plain(app), 'restart_delay_set', 'logs'), ...o });
  const unset = loadSavedApp(old({ restart_delay: 0, exp_backoff_restart_delay: 0 }), DUMP, { cpus: 1, home: '/h' });
  assert.equal(unset.restart_delay_set, false);
  const set = loadSavedApp(old({ restart_delay: 250 }), DUMP, { cpus: 1, home: '/h' });
  assert.deepEqual([set.restart_delay_set, set.restart_delay], [true, 250]);
  assert.equal(set.logs.out, '/h/logs/web-out.log', 'log settings derived as for a file');
});

test('a saved config that is not valid today is refused like a file, naming the dump', async () => {
  const [app] = (await loadEcosystem(at('minimal.yml'), { cpus: 1 })).apps;
  assert.throws(() => loadSavedApp({ ...plain(app), script: at('gone.js') }, DUMP, { cpus: 1 }), /** @param {any} err */ (err) => err.code === 'E_CONFIG'
    && err.details.problems.length === 1 && err.details.problems[0].startsWith(`${DUMP}:`) && /gone\.js/.test(err.details.problems[0]));
});
