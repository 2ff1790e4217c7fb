// Issue 16: the README's install commands work today. `npm pack` builds the tarball, npm
// installs it into a temporary prefix, and the installed `super` runs: --version (and
// `superd --version`, the same CLI under the package's name), start, the programmatic-API
// example of docs/protocol.md (against the installed package), ls, kill; the docs page
// `--help` names is in the package.
// Offline: the tests talk to loopback only. npm resolves an install from the registry's
// metadata, which `npm ci` never fetches, so the prefix gets a lockfile instead: the
// tarball plus this checkout's locked runtime dependencies, whose tarballs `npm ci` put in
// npm's cache; `npm ci --offline` installs exactly that.
import test from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { spawn, spawnSync } from 'node:child_process';
import { sandbox, freePort, waitGone, ROOT } from '../helpers/harness.js';

const quiet = { ...process.env, npm_config_update_notifier: 'false', npm_config_fund: 'false', npm_config_audit: 'false', npm_config_loglevel: 'error' };

function npm(args, cwd) {
  const r = spawnSync('npm', args, { cwd, env: quiet, encoding: 'utf8', timeout: 120000 });
  assert.equal(r.status, 0, `npm ${args.join(' ')}: ${r.stdout}${r.stderr}`);
  return r.stdout;
}

/** Runs `cmd args` with the sandbox's SUPER_HOME; resolves {code, stdout, stderr}. */
function run(box, cmd, args) {
  return new Promise((resolve, reject) => {
    const child = spawn(cmd, args, { cwd: box.dir, env: { ...process.env, SUPER_HOME: box.home, NO_COLOR: '1' }, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => (stdout += d));
    child.stderr.on('data', (d) => (stderr += d));
    const timer = setTimeout(() => child.kill('SIGKILL'), 60000);
    child.on('error', reject);
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
  });
}

/** The programmatic-API example: the first js block of "## Programmatic API" in docs/protocol.md. */
function docsExample() {
  const page = fs.readFileSync(path.join(ROOT, 'docs', 'protocol.md'), 'utf8');
  const section = page.slice(page.search(/^## Programmatic API$/m));
  return /```js\n([\s\S]*?)```/.exec(section)[1];
}

/** A prefix whose lockfile installs `tgz` (in `prefix`) with the locked runtime dependencies. */
function lockedPrefix(prefix, tgz) {
  const pkg = JSON.parse(fs.readFileSync(path.join(ROOT, 'package.json'), 'utf8'));
  const lock = JSON.parse(fs.readFileSync(path.join(ROOT, 'package-lock.json'), 'utf8'));
  const spec = `file:${tgz}`;
  const packages = {
    '': { name: 'superd-prefix', dependencies: { superd: spec } },
    'node_modules/superd': { version: pkg.version, resolved: spec, license: pkg.license, dependencies: pkg.dependencies, bin: pkg.bin, engines: pkg.engines, os: pkg.os },
  };
  for (const [at, entry] of Object.entries(lock.packages)) if (at && !entry.dev && !entry.link) packages[at] = entry;
  fs.mkdirSync(prefix, { recursive: true });
  fs.writeFileSync(path.join(prefix, 'package.json'), JSON.stringify({ name: 'superd-prefix', private: true, dependencies: { superd: spec } }));
  fs.writeFileSync(path.join(prefix, 'package-lock.json'), JSON.stringify({ name: 'superd-prefix', lockfileVersion: 3, requires: true, packages }));
}

test('the packed tarball installs into a prefix and runs: super --version, superd --version, start, the API example, kill', async (t) => {
  const box = await sandbox(t);
  const prefix = path.join(box.dir, 'prefix');
  fs.mkdirSync(prefix);
  const tgz = npm(['pack', '--pack-destination', prefix, '--silent'], ROOT).trim().split('\n').pop();
  lockedPrefix(prefix, tgz);
  npm(['ci', '--offline', '--omit=dev'], prefix);
  const installed = path.join(prefix, 'node_modules', 'superd');
  const superBin = path.join(prefix, 'node_modules', '.bin', 'super');
  assert.ok(!fs.existsSync(path.join(installed, 'test')), 'the tests are not packed');
  assert.ok(fs.existsSync(path.join(installed, 'types', 'index.d.ts')), 'the type declarations are');
  const docsPath = /^Docs: (\S+?)#/m.exec((await run(box, superBin, ['start', '--help'])).stdout)[1];
  assert.ok(fs.existsSync(path.join(installed, docsPath)), `the page --help names is packed: ${docsPath}`);

  const { version } = JSON.parse(fs.readFileSync(path.join(ROOT, 'package.json'), 'utf8'));
  const v = await run(box, superBin, ['--version']);
  assert.equal(v.code, 0, v.stderr);
  assert.equal(v.stdout.trim(), version);
  const vd = await run(box, path.join(prefix, 'node_modules', '.bin', 'superd'), ['--version']);
  assert.equal(vd.code, 0, vd.stderr);
  assert.equal(vd.stdout.trim(), version);

  const [webPort, helloPort] = [await freePort(), await freePort()];
  box.fixture('http-server.js');
  box.write('web.yml', `apps:\n  - name: web\n    script: http-server.js\n    env: { PORT: ${webPort} }\n`);
  const start = await run(box, superBin, ['start', 'web.yml']);
  assert.equal(start.code, 0, start.stderr);
  const daemonPid = box.daemonPid();
  const cmdline = fs.readFileSync(`/proc/${daemonPid}/cmdline`, 'utf8');
  assert.ok(cmdline.includes(installed), `the daemon runs from the installed package: ${cmdline}`);

  // The docs' example, importing `superd` as an app that installed it would.
  box.write('ecosystem.yml', `apps:\n  - name: hello\n    script: http-server.js\n    instances: 2\n    env: { PORT: ${helloPort} }\n`);
  fs.mkdirSync(path.join(box.dir, 'node_modules'));
  fs.symlinkSync(installed, path.join(box.dir, 'node_modules', 'superd'));
  box.write('api-example.mjs', docsExample());
  const example = await run(box, process.execPath, ['api-example.mjs']);
  assert.equal(example.code, 0, example.stderr);
  assert.match(example.stdout, /^web online \d+$/m);
  assert.match(example.stdout, /^hello online \d+ \d+$/m);
  assert.match(example.stdout, /^hello reloaded$/m);

  const ls = await run(box, superBin, ['ls', '--json']);
  assert.equal(ls.code, 0, ls.stderr);
  const apps = JSON.parse(ls.stdout).apps;
  assert.deepEqual(apps.map((a) => [a.name, a.status]), [['web', 'online'], ['hello', 'online']]);
  const kill = await run(box, superBin, ['kill']);
  assert.equal(kill.code, 0, kill.stderr);
  assert.deepEqual(await waitGone([daemonPid, ...apps.flatMap((a) => a.workers.map((w) => w.pid))]), []);
});
