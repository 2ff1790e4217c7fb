// What a PM2 `script` means: a command line, a Node program without a .js name (#! line,
// a node_modules/.bin link), a directory, npm/yarn/pnpm in cluster mode. The pure parts,
// then each read through lib/config as a file's entry.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, test } from 'node:test';
import { loadEcosystemText } from '../../lib/config/index.js';
import { isNodeProgram, shebangRunsNode, directoryEntry } from '../../lib/config/resolve-script.js';
import { nodeCommand, packageNodeCommand, packageScript } from '../../lib/config/script-entry.js';

const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'superd-script-'));
after(() => fs.rmSync(tmp, { recursive: true, force: true }));
const write = (name, text, mode = 0o644) => {
  const p = path.join(tmp, name);
  fs.mkdirSync(path.dirname(p), { recursive: true });
  fs.writeFileSync(p, text, { mode });
  return p;
};
write('server.js', '');
write('bin/www', '#!/usr/bin/env node\nrequire("../server.js");\n', 0o755);
write('bin/env-s', '#!/usr/bin/env -S node --no-warnings\n', 0o755);
write('bin/shell', '#!/bin/sh\necho hi\n', 0o755);
write('bin/plain', 'console.log(1)\n'); // text, no #!, not executable: PM2 runs it with Node
write('bin/plain-exec', 'echo hi\n', 0o755); // text, no #!, executable: the shell's
write('bin/binary', Buffer.from([0x7f, 0x45, 0x4c, 0x46, 0, 0, 0]), 0o755);
write('bin/run.sh', '#!/usr/bin/env node\n', 0o755); // the extension says shell: PM2 runs bash
write('node_modules/serve/cli.js', '');
fs.mkdirSync(path.join(tmp, 'node_modules/.bin'));
fs.symlinkSync('../serve/cli.js', path.join(tmp, 'node_modules/.bin/serve'));
write('worker-dir/package.json', JSON.stringify({ main: 'lib/main' }));
write('worker-dir/lib/main.js', '');
write('index-dir/index.js', '');
write('empty-dir/README', '');
write('package.json', JSON.stringify({ scripts: { start: 'NODE_ENV=production node --no-warnings bin/www --port 80', build: 'tsc && node dist/x.js', serve: 'node server.js' } }));

test('a #! line that runs node', () => {
  for (const line of ['/usr/bin/node', '/usr/bin/env node', '/usr/local/bin/nodejs --harmony', '/usr/bin/env -S node --no-warnings', '/usr/bin/env NODE_ENV=x node']) assert.equal(shebangRunsNode(line), true, line);
  for (const line of ['/bin/sh', '/usr/bin/env python3', '/usr/bin/env', '', '/usr/bin/env nodemon']) assert.equal(shebangRunsNode(line), false, line);
});

test('a Node program by its #! line or its link, not by its name', () => {
  const yes = ['server.js', 'bin/www', 'bin/env-s', 'bin/plain', 'node_modules/.bin/serve'];
  const no = ['bin/shell', 'bin/plain-exec', 'bin/binary', 'bin/run.sh'];
  for (const f of yes) assert.equal(isNodeProgram(path.join(tmp, f)), true, f);
  for (const f of no) assert.equal(isNodeProgram(path.join(tmp, f)), false, f);
  assert.equal(isNodeProgram('/dev/zero'), false, 'a device is never read');
});

test('a directory runs its package.json main, else its index.js', () => {
  assert.deepEqual(directoryEntry(path.join(tmp, 'worker-dir')), { path: path.join(tmp, 'worker-dir/lib/main.js') });
  assert.deepEqual(directoryEntry(path.join(tmp, 'index-dir')), { path: path.join(tmp, 'index-dir/index.js') });
  assert.match(directoryEntry(path.join(tmp, 'empty-dir')).error, /no package\.json main nor index\.js; name the entry file inside it$/);
});

test('node <file> command lines', () => {
  assert.deepEqual(nodeCommand(['node', 'server.js', '--port', '80']), { node: 'node', nodeArgs: [], file: 'server.js', args: ['--port', '80'] });
  assert.deepEqual(nodeCommand(['/usr/bin/node', '-r', 'dotenv/config', '--max-old-space-size=512', 'a.js']), { node: '/usr/bin/node', nodeArgs: ['-r', 'dotenv/config', '--max-old-space-size=512'], file: 'a.js', args: [] });
  for (const words of [['node'], ['node', '-e', 'x'], ['node', '--eval=1'], ['npm', 'start'], ['nodemon', 'a.js'], ['node', '--inspect']]) assert.equal(nodeCommand(words), null, words.join(' '));
});

test('a package script that is a plain node command', () => {
  assert.deepEqual(packageNodeCommand('NODE_ENV=production node bin/www'), { env: { NODE_ENV: 'production' }, node: 'node', nodeArgs: [], file: 'bin/www', args: [] });
  for (const line of ['tsc && node dist/x.js', 'node a.js | pino-pretty', 'node $ENTRY', 'next start', undefined]) assert.equal(packageNodeCommand(line), null, line);
  const pkg = { scripts: { start: 'node a.js', serve: 'node b.js' } };
  assert.deepEqual(packageScript('npm', ['start'], pkg, tmp), { name: 'start', line: 'node a.js', rest: [] });
  assert.deepEqual(packageScript('npm', ['run', 'serve', '--', '-v'], pkg, tmp), { name: 'serve', line: 'node b.js', rest: ['-v'] });
  assert.deepEqual(packageScript('yarn', ['serve'], pkg, tmp), { name: 'serve', line: 'node b.js', rest: [] });
  assert.equal(packageScript('npm', ['serve'], pkg, tmp), null, 'npm serve is no npm command');
  assert.deepEqual(packageScript('npm', ['start'], {}, tmp), { name: 'start', line: 'node server.js', rest: [] }, 'npm start\'s default');
});

/** Load YAML app entries as if they were `<tmp>/eco.yml`. */
function load(apps) {
  return loadEcosystemText(`apps:\n${apps}`, path.join(tmp, 'eco.yml'), { cpus: 4 });
}
const pick = (a) => ({ script: path.relative(tmp, a.script), args: a.args, interpreter: a.interpreter, exec_mode: a.exec_mode, node_args: a.node_args });

test('a command line as script: node <file> stays a Node app, anything else runs in fork mode', () => {
  const { apps, warnings } = load(`
  - { name: a, script: "node server.js --port 80", exec_interpreter: none, args: [--x] }
  - { name: b, script: "node --no-warnings server.js", instances: 2 }
  - { name: c, script: "echo 'two words'" }
`);
  assert.deepEqual(apps.slice(0, 2).map(pick), [
    { script: 'server.js', args: ['--port', '80', '--x'], interpreter: 'node', exec_mode: 'fork', node_args: [] },
    { script: 'server.js', args: [], interpreter: 'node', exec_mode: 'cluster', node_args: ['--no-warnings'] },
  ]);
  assert.match(apps[2].script, /\/echo$/);
  assert.deepEqual([apps[2].args, apps[2].interpreter, apps[2].exec_mode], [['two words'], 'none', 'fork']);
  assert.deepEqual(warnings, []);
});

test('a Node program without .js runs in cluster mode; a directory runs its entry', () => {
  const { apps } = load(`
  - { name: www, script: ./bin/www }
  - { name: link, script: node_modules/.bin/serve, instances: 2 }
  - { name: dir, script: ./worker-dir/ }
  - { name: idx, script: index-dir }
  - { name: sh, script: bin/shell }
`);
  assert.deepEqual(apps.map((a) => [a.name, path.relative(tmp, a.script), a.interpreter, a.exec_mode]), [
    ['www', 'bin/www', 'node', 'cluster'],
    ['link', 'node_modules/.bin/serve', 'node', 'cluster'],
    ['dir', 'worker-dir/lib/main.js', 'node', 'cluster'],
    ['idx', 'index-dir/index.js', 'node', 'cluster'],
    ['sh', 'bin/shell', 'none', 'fork'],
  ]);
});

test('npm in cluster mode: the package script\'s node <file> in cluster mode, else fork, with one warning', () => {
  const { apps, warnings } = load(`
  - { name: web, script: npm, args: start, exec_mode: cluster, instances: 2 }
  - { name: build, script: npm, args: run build, exec_mode: cluster, instances: 2 }
  - { name: plain, script: npm, args: start }
`);
  assert.deepEqual(apps.map((a) => [a.name, path.basename(a.script), a.args, a.exec_mode, a.instances, a.env.NODE_ENV]), [
    ['web', 'www', ['--port', '80'], 'cluster', 2, 'production'],
    ['build', 'npm', ['run', 'build'], 'fork', 2, undefined],
    ['plain', 'npm', ['start'], 'fork', 1, undefined],
  ]);
  assert.deepEqual(apps[0].node_args, ['--no-warnings']);
  assert.equal(warnings.length, 2, warnings.join('\n'));
  assert.match(warnings[0], /eco\.yml:3:\d+: apps\[0\]\.script: npm start in cluster mode would make npm, not its child, the worker; superd runs the package script's command \(NODE_ENV=production node --no-warnings bin\/www --port 80\) itself in cluster mode/);
  assert.match(warnings[1], /apps\[1\]\.script: npm run build in cluster mode .*superd runs it in fork mode/);
});

test('still refused: a directory without an entry, a command line that does not split, cluster mode of a shell script', () => {
  assert.throws(() => load(`
  - { name: d, script: empty-dir }
  - { name: q, script: "node 'server.js" }
  - { name: s, script: bin/shell, exec_mode: cluster }
`), /** @param {any} err */ (err) => {
    const lines = err.details.problems.map((p) => p.slice(p.indexOf('eco.yml')));
    assert.match(lines[0], /^eco\.yml:3:\d+: apps\[0\]\.script: is a directory: .*empty-dir, and it has no package\.json main nor index\.js/);
    assert.match(lines[1], /^eco\.yml:4:\d+: apps\[1\]\.script: cannot split the command line: unterminated single quote/);
    assert.match(lines[2], /^eco\.yml:5:\d+: apps\[2\]\.exec_mode: cluster mode needs a Node script \(bin\/shell is not a Node program\)/);
    return true;
  });
});
