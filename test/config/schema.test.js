// config/schema.json is the documentation of the ecosystem file: every key
// must be described, and the normalized App must carry every app key.

import assert from 'node:assert/strict';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { loadEcosystemText } from '../../lib/config/index.js';
import { ecosystemSchema } from '../../lib/config/schema-check.js';

const schema = ecosystemSchema();

/** Every schema reachable as a key, with its path. */
function* keys(node, where) {
  for (const [name, sub] of Object.entries({ ...node.properties, ...node.patternProperties })) {
    yield [`${where}.${name}`, sub];
    yield* keys(sub, `${where}.${name}`);
  }
}

test('every key has a description', () => {
  const all = [...keys(schema, ''), ...Object.entries(schema.$defs).flatMap(([n, d]) => [[`$defs.${n}`, d], ...keys(d, `$defs.${n}`)])];
  assert.ok(all.length > 60);
  const undocumented = all.filter(([, s]) => typeof s.description !== 'string' || s.description.length < 10).map(([p]) => p);
  assert.deepEqual(undocumented, []);
});

test('every anyOf and pattern says in words what it expects (x-expected)', () => {
  const missing = [];
  const visit = (node, where) => {
    if (!node || typeof node !== 'object') return;
    // propertyNames problems have their own message (lib/config/schema-check.js).
    if ((node.anyOf || node.pattern) && !node['x-expected'] && !where.endsWith('/propertyNames')) missing.push(where);
    for (const [k, v] of Object.entries(node)) visit(v, `${where}/${k}`);
  };
  // Branches of an anyOf are described by the anyOf itself; visit ignores their patterns.
  const strip = (node) => (node && typeof node === 'object'
    ? Object.fromEntries(Object.entries(node).map(([k, v]) => [k, k === 'anyOf' ? [] : strip(v)]))
    : node);
  visit(strip(schema), '#');
  assert.deepEqual(missing, []);
});

test('the normalized app carries every app key of the schema', () => {
  const dir = fileURLToPath(new URL('../fixtures/good-config/', import.meta.url));
  const { apps } = loadEcosystemText('apps:\n  - { name: a, script: app.js }\n', `${dir}eco.yml`, { cpus: 1 });
  // PM2's other names (x-alias-of) land in their superd key, PM2-only keys nowhere; port
  // lands in env.PORT, log_file in out_file/error_file, disable_source_map_support in
  // source_map_support.
  const folded = ['port', 'log_file', 'disable_source_map_support'];
  const appKeys = Object.entries(schema.$defs.app.properties)
    .filter(([k, s]) => !s['x-alias-of'] && !s['x-pm2-only'] && !folded.includes(k)).map(([k]) => k);
  assert.deepEqual(appKeys.filter((k) => !(k in apps[0])), []);
  assert.deepEqual(Object.keys(apps[0]).filter((k) => !appKeys.includes(k)).sort(), ['instances_spec', 'logs', 'node_path', 'reload_ready_on', 'restart_delay_set', 'source']);
});

test('the normalized daemon settings carry every top-level section', () => {
  const dir = fileURLToPath(new URL('../fixtures/good-config/', import.meta.url));
  const { daemon } = loadEcosystemText('apps:\n  - { name: a, script: app.js }\n', `${dir}eco.yml`, { cpus: 1 });
  const sections = Object.entries(schema.properties).filter(([k, s]) => k !== 'apps' && k !== 'daemon' && !s['x-pm2-only']).map(([k]) => k);
  assert.deepEqual(sections.filter((k) => !(k in daemon)), []);
  assert.deepEqual(Object.keys(schema.properties.daemon.properties).filter((k) => !(k in daemon)), []);
});

test('the precompiled validator is up to date with config/schema.json', async () => {
  const { buildValidatorSource, OUTPUT_URL } = await import('../../lib/config/build-validator.js');
  const { readFileSync } = await import('node:fs');
  assert.ok(
    readFileSync(OUTPUT_URL, 'utf8') === buildValidatorSource(),
    'stale: run `node lib/config/build-validator.js` after editing config/schema.json',
  );
});
