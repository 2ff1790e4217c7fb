// Normalization rules and the checks made in code (not by the schema).

import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, test } from 'node:test';
import { loadEcosystem, loadEcosystemText, MAX_FILE_BYTES } from '../../lib/config/index.js';

const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'superd-config-'));
after(() => fs.rmSync(tmp, { recursive: true, force: true }));
for (const f of ['app.js', 'app.cjs', 'notes.txt']) fs.writeFileSync(path.join(tmp, f), '');
fs.writeFileSync(path.join(tmp, 'worker.py'), '#!/usr/bin/env python3\n', { mode: 0o755 });
fs.mkdirSync(path.join(tmp, 'bin'));
fs.writeFileSync(path.join(tmp, 'bin', 'mytool'), '#!/bin/sh\n', { mode: 0o755 });

/** Load YAML text as if it were `<tmp>/eco.yml`. */
function load(text, options = {}) {
  return loadEcosystemText(text, path.join(tmp, 'eco.yml'), { cpus: 4, ...options });
}

function problemsOf(text, options) {
  try {
    load(text, options);
  } catch (err) {
    assert.equal(err.code, 'E_CONFIG');
    return err.details.problems.map((p) => p.slice(p.indexOf('eco.yml')));
  }
  assert.fail('the text was accepted');
}

test('interpreter, exec_mode and ready_on defaults follow the script', () => {
  const { apps } = load(`
apps:
  - { name: js, script: app.js }
  - { name: cjs, script: app.cjs }
  - { name: py, script: worker.py }
  - { name: forked, script: app.js, exec_mode: fork }
  - { name: waits, script: app.js, wait_ready: true }
`);
  assert.deepEqual(apps.map((a) => [a.name, a.interpreter, a.exec_mode, a.ready_on]), [
    ['js', 'node', 'cluster', 'listen'],
    ['cjs', 'node', 'cluster', 'listen'],
    ['py', 'none', 'fork', 'spawn'],
    ['forked', 'node', 'fork', 'spawn'],
    ['waits', 'node', 'cluster', 'ready'],
  ]);
});

test('env_<name> is merged over env for --env <name>; values become strings', () => {
  const text = `
apps:
  - name: a
    script: app.js
    env: { NODE_ENV: dev, PORT: 3000, ON: true, EMPTY: }
    env_production: { NODE_ENV: production, EXTRA: 1.5 }
  - name: b
    script: app.js
    env: { NODE_ENV: dev }
`;
  const { apps } = load(text, { env: 'production' });
  assert.deepEqual(apps[0].env, { NODE_ENV: 'production', PORT: '3000', ON: 'true', EMPTY: '', EXTRA: '1.5' });
  assert.deepEqual(apps[1].env, { NODE_ENV: 'dev' }, 'an app without env_production keeps its env');
  assert.deepEqual(load(text).apps[0].env, { NODE_ENV: 'dev', PORT: '3000', ON: 'true', EMPTY: '' });
});

test('an env variable named __proto__ stays a plain variable', () => {
  const { apps } = load('apps:\n  - { name: a, script: app.js, env: { __proto__: x } }\n');
  assert.equal(Object.getPrototypeOf(apps[0].env), Object.prototype);
  assert.deepEqual(JSON.parse(JSON.stringify(apps[0].env)), JSON.parse('{"__proto__":"x"}'));
});

test('only keeps the named apps, in file order; an unknown name is a problem', () => {
  const text = 'apps:\n  - { name: a, script: app.js }\n  - { name: b, script: app.js }\n  - { name: c, script: app.js }\n';
  assert.deepEqual(load(text, { only: ['c', 'a'] }).apps.map((a) => a.name), ['a', 'c']);
  assert.deepEqual(problemsOf(text, { only: ['a', 'd'] }), ['eco.yml: --only d: not in this file; apps are: a, b, c']);
});

test('a bad --only name is listed after the problems in the file', () => {
  const problems = problemsOf('apps:\n  - { name: a, script: app.js, instances: x }\n', { only: ['zz'] });
  assert.equal(problems.length, 2);
  assert.match(problems[0], /^eco\.yml:2:43: apps\[0\]\.instances: /);
  assert.equal(problems[1], 'eco.yml: --only zz: not in this file; apps are: a');
});

test('instances resolve against cpus (default: os.availableParallelism())', () => {
  const text = 'apps:\n  - { name: a, script: app.js, instances: max }\n  - { name: b, script: app.js, instances: -1 }\n';
  assert.deepEqual(load(text, { cpus: 3 }).apps.map((a) => [a.instances, a.instances_spec]), [[3, 'max'], [2, -1]]);
  const eco = loadEcosystemText(text.split('\n').slice(0, 2).join('\n'), path.join(tmp, 'eco.yml'));
  assert.equal(eco.apps[0].instances, os.availableParallelism());
});

test('args and node_args: strings split like a shell, lists kept, numbers as text', () => {
  const { apps } = load(`
apps:
  - name: a
    script: app.js
    args: [--port, 8080, --verbose, true]
    node_args: --inspect=0 --title "my app"
`);
  assert.deepEqual(apps[0].args, ['--port', '8080', '--verbose', 'true']);
  assert.deepEqual(apps[0].node_args, ['--inspect=0', '--title', 'my app']);
});

test('relative cwd, script, out_file and watch resolve against the right directories', () => {
  fs.mkdirSync(path.join(tmp, 'svc'), { recursive: true });
  fs.writeFileSync(path.join(tmp, 'svc', 'main.mjs'), '');
  const { apps } = load('apps:\n  - { name: a, script: main.mjs, cwd: svc, out_file: out.log, watch: true }\n');
  assert.equal(apps[0].cwd, path.join(tmp, 'svc'));
  assert.equal(apps[0].script, path.join(tmp, 'svc', 'main.mjs'));
  assert.equal(apps[0].out_file, path.join(tmp, 'svc', 'out.log'));
  assert.deepEqual(apps[0].watch, [path.join(tmp, 'svc')]);
});

test('baseDir overrides the file\'s directory for relative paths', () => {
  const eco = loadEcosystemText('apps:\n  - { name: a, script: app.js }\n', '/nowhere/eco.yml', { baseDir: tmp, cpus: 1 });
  assert.equal(eco.file, '/nowhere/eco.yml');
  assert.equal(eco.apps[0].script, path.join(tmp, 'app.js'));
  assert.equal(eco.apps[0].cwd, tmp);
});

test('interpreter none: a bare name is looked up on the app\'s PATH', () => {
  const text = `apps:\n  - { name: t, script: mytool, env: { PATH: "${path.join(tmp, 'bin')}" } }\n`;
  const { apps } = load(text);
  assert.equal(apps[0].script, path.join(tmp, 'bin', 'mytool'));
  assert.equal(apps[0].interpreter, 'none');
  assert.equal(apps[0].exec_mode, 'fork');
});

test('interpreter none: the script must be executable', () => {
  assert.deepEqual(problemsOf('apps:\n  - { name: t, script: notes.txt }\n'), [
    `eco.yml:2:24: apps[0].script: not executable: ${path.join(tmp, 'notes.txt')}; chmod +x it, or set interpreter: node for a Node script`,
  ]);
});

test('an app whose cwd is wrong gets no second problem about its script', () => {
  assert.deepEqual(problemsOf('apps:\n  - { name: a, script: app.js, cwd: missing }\n'), [
    `eco.yml:2:37: apps[0].cwd: directory not found: ${path.join(tmp, 'missing')}; check the path (relative to ${tmp})`,
  ]);
});

test('the daemon section takes defaults and resolves paths', () => {
  const { daemon } = load('logs: { dir: /var/log/x, max_size: 1K }\nmetrics: { interval: 250 }\napps:\n  - { name: a, script: app.js }\n');
  assert.deepEqual(daemon, {
    scheduling: 'auto',
    scheduling_set: false,
    control: { listen: null, tls: null, origins: [] },
    logs: { dir: '/var/log/x', max_size: 1024, retain: null, compress: false },
    metrics: { listen: null, interval: 250, agent_check: null },
    cpu_affinity: null,
  });
});

test('an unreadable file is E_CONFIG with one problem naming the path', async () => {
  const missing = path.join(tmp, 'nope.yml');
  await assert.rejects(loadEcosystem(missing), /** @param {any} err */ (err) => {
    assert.equal(err.code, 'E_CONFIG');
    assert.equal(err.exitStatus, 2);
    assert.equal(err.message, `1 problem in ${missing}`);
    assert.deepEqual(err.details.problems, [`${missing}: cannot read the ecosystem file: no such file: ${missing}; check the path`]);
    return true;
  });
  await assert.rejects(loadEcosystem(tmp), /** @param {any} err */ (err) => {
    assert.deepEqual(err.details.problems, [`${tmp}: cannot read the ecosystem file: is a directory: ${tmp}; give the ecosystem file inside it`]);
    return true;
  });
});

test('the error crosses the wire with its problems', () => {
  try {
    load('apps: []\n');
    assert.fail('accepted');
  } catch (err) {
    const wire = JSON.parse(JSON.stringify(err));
    assert.equal(wire.code, 'E_CONFIG');
    assert.equal(wire.details.problems.length, 1);
  }
});

test('a relative file name is shown as given and returned absolute', async () => {
  const rel = path.relative(process.cwd(), path.join(tmp, 'eco.yml'));
  fs.writeFileSync(path.join(tmp, 'eco.yml'), 'apps:\n  - { name: a, script: app.js }\n');
  const eco = await loadEcosystem(rel, { cpus: 1 });
  assert.equal(eco.file, path.join(tmp, 'eco.yml'));
  fs.writeFileSync(path.join(tmp, 'eco.yml'), 'apps: 1\n');
  await assert.rejects(loadEcosystem(rel), /** @param {any} err */ (err) => err.details.problems[0].startsWith(`${rel}:1:7: apps: `));
});

test('an ecosystem file over 1 MiB is refused unread', async () => {
  const big = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'sd-big-')), 'eco.yml');
  fs.writeFileSync(big, `apps: []\n${'#'.repeat(MAX_FILE_BYTES)}\n`);
  try {
    await assert.rejects(loadEcosystem(big), /** @param {any} err */ (err) => err.code === 'E_CONFIG' && /more than the 1048576 an ecosystem file may have/.test(err.details.problems[0]));
  } finally {
    fs.rmSync(path.dirname(big), { recursive: true, force: true });
  }
});
