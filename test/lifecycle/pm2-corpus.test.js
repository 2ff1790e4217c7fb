// The corpus test/fixtures/pm2/: ecosystem files written the way PM2 projects write them
// (pm2 init's shapes, several apps, `npm start`, .mjs servers, instances: 'max', deploy
// sections, JS logic, TypeScript, JSON, YAML), each started unchanged by one real daemon
// with the right number of workers, then deleted before the next file.
import test from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { sandbox, lsJson, FIXTURES } from '../helpers/harness.js';
import { ALLOWED } from '../helpers/cpus.js';

const dir = path.join(FIXTURES, 'pm2');
const MAX = ALLOWED.length;

/** file -> { args: extra CLI flags, apps: name -> online workers expected (0: registered, stopped) } */
const CORPUS = {
  'ecosystem.config.js': { apps: { app1: 1 } },
  'cluster-max.config.js': { args: ['--env', 'production'], apps: { api: MAX } },
  'npm-start.config.js': { apps: { web: 1 } },
  'multi-app.config.js': { apps: { gateway: 2, 'queue-worker': 1, admin: 1 } },
  'deploy.config.js': { apps: { 'deployed-api': 2, 'deployed-worker': 1 } },
  'esm-server.config.cjs': { apps: { 'esm-api': 2 } },
  'ecosystem.config.mjs': { apps: { 'mjs-app': 1 } },
  'ecosystem.json': { args: ['--env', 'production'], apps: { 'json-api': 2, 'json-worker': 1 } },
  'ecosystem.yml': { apps: { 'yaml-api': 2, 'yaml-worker': 1 } },
  'env-logic.config.js': { apps: { 'env-api': 1 } },
  'ecosystem.config.ts': { apps: { 'ts-api': 2, 'ts-worker': 1 } },
  'increment-var.config.js': { apps: { ports: 2 } },
  'logs.config.js': { apps: { quiet: 1, combined: 1 } },
  'shell-job.config.js': { apps: { 'nightly-sync': 1 } },
  'node-args.config.js': { apps: { tuned: 2 } },
  'full-keys.config.js': { args: ['--env', 'production'], apps: { 'kitchen-sink': Math.max(1, MAX - 1) } },
  'autostart.config.js': { apps: { always: 1, 'on-demand': 0 } },
  'process.json': { apps: { legacy: 2 } },
};

test('every corpus file starts unchanged with the right number of workers', async (t) => {
  const files = fs.readdirSync(dir).filter((f) => f !== 'package.json' && fs.statSync(path.join(dir, f)).isFile()).sort();
  assert.ok(files.length >= 15, `corpus has ${files.length} files`);
  assert.deepEqual(files, Object.keys(CORPUS).sort(), 'every corpus file has its expectation');
  const box = await sandbox(t);
  for (const file of files) {
    const { args = [], apps } = CORPUS[file];
    const r = await box.cli(['start', file, ...args], { cwd: dir });
    assert.equal(r.code, 0, `${file}: exit ${r.code}\n${r.stderr}`);
    const ls = await lsJson(box);
    const seen = Object.fromEntries(ls.apps.map((a) => [a.name, a.workers.filter((w) => w.status === 'online').length]));
    assert.deepEqual(seen, apps, `${file}: online workers per app\n${r.stderr}`);
    // No app fails to become ready (a warning would say so): only PM2-only keys warn.
    for (const line of r.stderr.split('\n').filter(Boolean)) assert.match(line, /PM2-only key|autostart: false/, `${file}: ${line}`);
    const d = await box.cli(['delete', 'all']);
    assert.equal(d.code, 0, `${file}: delete: ${d.stderr}`);
  }
});
