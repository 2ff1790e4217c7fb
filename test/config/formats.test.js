// Every ecosystem format PM2 reads, through loadEcosystem: YAML, JSON (JSON's own errors,
// with file:line:col), and JS/TS files run in a child process (module.exports, export
// default, a function, TypeScript types stripped), with bounded, one-line failures.
import assert from 'node:assert/strict';
import { execFileSync, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import module from 'node:module';
import os from 'node:os';
import path from 'node:path';
import { test } from 'node:test';
import { loadEcosystem } from '../../lib/config/index.js';
import { evaluateConfigFile } from '../../lib/config/js-config.js';
import { waitGone } from '../helpers/harness.js';

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'sd-formats-'));
test.after(() => fs.rmSync(dir, { recursive: true, force: true }));
fs.writeFileSync(path.join(dir, 'app.js'), 'setInterval(() => {}, 1000);\n');
const write = (name, text) => {
  const p = path.join(dir, name);
  fs.mkdirSync(path.dirname(p), { recursive: true });
  fs.writeFileSync(p, text);
  return p;
};
/** The E_CONFIG problems of a refused file. */
async function problemsOf(file, options) {
  const err = await loadEcosystem(file, { cpus: 2, ...options }).then(() => null, (e) => e);
  assert.ok(err, `${file} was accepted`);
  assert.equal(err.code, 'E_CONFIG', err.stack);
  return err.details.problems;
}
const names = (eco) => eco.apps.map((a) => a.name);

test('YAML and JSON files load the same apps; a JSON file gets PM2\'s defaults, a YAML file superd\'s', async () => {
  const yml = await loadEcosystem(write('eco.yml', 'apps:\n  - name: a\n    script: app.js\n'), { cpus: 2 });
  const json = await loadEcosystem(write('eco.json', '{\n  "apps": [{ "name": "a", "script": "app.js" }]\n}\n'), { cpus: 2 });
  assert.deepEqual(names(yml), ['a']);
  const pm2Defaults = (app) => [app.exec_mode, app.ready_on, path.basename(app.logs.err)];
  assert.deepEqual(pm2Defaults(yml.apps[0]), ['cluster', 'listen', 'a-err.log']);
  assert.deepEqual(pm2Defaults(json.apps[0]), ['fork', 'spawn', 'a-error.log']);
  const rest = (app) => ({ ...app, source: null, exec_mode: null, ready_on: null, logs: { ...app.logs, err: null, pm2Slots: null } });
  assert.deepEqual(rest(json.apps[0]), rest(yml.apps[0]));
});

test('a JSON file read as PM2 reads it, a JavaScript literal: keys without quotes, single quotes, undefined; no code runs', async () => {
  const file = write('js.json', "/* pm2 */ {\n  apps: [{ name: 'a', script: 'app.js', env: { Q: 'it\\'s', N: .5, U: undefined, H: 0x10 }, },],\n}\n");
  assert.deepEqual((await loadEcosystem(file, { cpus: 2 })).apps.map((a) => [a.name, a.env]), [['a', { Q: "it's", N: '0.5', H: '16' }]]);
  const code = write('code.json', '{\n  "apps": [{ "name": require("os").hostname(), "script": "app.js" }]\n}\n');
  assert.equal((await problemsOf(code)).length, 1, 'a call is not a literal: refused, never run');
});

test('a JSON file with comments and trailing commas, as PM2 takes them; a real syntax error still at file:line:col', async () => {
  const file = write('comma.json', '// process.json\n{\n  "apps": [\n    { "name": "a", /* api */ "script": "app.js", "env": { "U": "http://x//y,]" }, },\n  ],\n}\n');
  assert.deepEqual((await loadEcosystem(file, { cpus: 2 })).apps.map((a) => [a.name, a.env.U]), [['a', 'http://x//y,]']]);
  const bad = write('bad.json', '{\n  // apps\n  "apps": [\n    { "name": "a" "script": "app.js" }\n  ]\n}\n');
  assert.deepEqual(await problemsOf(bad), [`${bad}:4:19: JSON syntax error: expected "," or "}", found "\\""; separate items with commas and close the { }`]);
});

test('a JSON file is JSON, not YAML: a YAML-only form is refused with JSON\'s words', async () => {
  const file = write('yamlish.json', 'apps:\n  - name: a\n');
  const [p] = await problemsOf(file);
  assert.match(p, /:1:1: JSON syntax error: expected a value, found "a"/);
});

test('JSON key problems point at the key: file:line:col, as for YAML', async () => {
  const file = write('typo.json', '{\n  "apps": [\n    { "name": "a", "script": "app.js",\n      "autorestrat": false }\n  ]\n}\n');
  assert.deepEqual(await problemsOf(file), [`${file}:4:7: apps[0].autorestrat: unknown key; did you mean "autorestart"?`]);
});

test('CommonJS: module.exports, with JS logic (path.join(__dirname), process.env)', async () => {
  const file = write('ecosystem.config.js', `const path = require('path');
module.exports = {
  apps: [{ name: 'api', script: path.join(__dirname, 'app.js'), env: { WHO: process.env.WHO_AM_I } }],
};
`);
  const eco = await loadEcosystem(file, { cpus: 2, callerEnv: { ...process.env, WHO_AM_I: 'the caller' } });
  assert.equal(eco.apps[0].script, path.join(dir, 'app.js'));
  assert.deepEqual(eco.apps[0].env, { WHO: 'the caller' });
});

test('ESM: export default, and a function returning the config (awaited)', async () => {
  const mjs = await loadEcosystem(write('eco.mjs', "export default { apps: [{ name: 'm', script: 'app.js' }] };\n"), { cpus: 2 });
  assert.deepEqual(names(mjs), ['m']);
  const fn = await loadEcosystem(write('fn.cjs', "module.exports = async () => ({ apps: [{ name: 'f', script: 'app.js', cwd: process.cwd() }] });\n"), { cpus: 2 });
  assert.deepEqual(names(fn), ['f']);
  assert.equal(fn.apps[0].cwd, dir, 'the file runs in its own directory');
});

test('TypeScript: interfaces, import type, annotations and export default are stripped (.ts, .mts, .cts)', async () => {
  const ts = write('ecosystem.config.ts', `import type { Server } from 'node:http';
interface App { name: string; script: string; instances?: number | 'max' }
const instances: number = 2;
const apps: App[] = [{ name: 'ts', script: 'app.js', instances }];
export default { apps } satisfies { apps: App[] };
`);
  const eco = await loadEcosystem(ts, { cpus: 2 });
  assert.deepEqual(names(eco), ['ts']);
  assert.equal(eco.apps[0].instances, 2);
  const mts = await loadEcosystem(write('eco.mts', "type N = number;\nconst n: N = 1;\nexport default { apps: [{ name: 'mts', script: 'app.js', instances: n }] };\n"), { cpus: 2 });
  assert.deepEqual(names(mts), ['mts']);
  const cts = await loadEcosystem(write('eco.cts', "const name: string = 'cts';\nmodule.exports = { apps: [{ name, script: 'app.js' }] };\n"), { cpus: 2 });
  assert.deepEqual(names(cts), ['cts']);
});

test('a TypeScript file needs no more memory than a JavaScript one: no second V8 isolate for the type stripping (Node 22.15+)', {
  skip: typeof (/** @type {any} */ (module)).registerHooks !== 'function' && 'this Node has no module.registerHooks: its hooks run in a thread of their own',
}, () => {
  // The evaluator's allocation bound is the parent's own data plus 512 MB (js-config.js); a
  // hooks thread is a second isolate, ~550 MB of data on Node 24, which a fresh CLI's bound
  // did not hold. Here the bound is a fresh Node's data plus 128 MB.
  const fresh = Number(execFileSync(process.execPath, ['-e', 'process.stdout.write(/^VmData:\\s+(\\d+)/m.exec(require("fs").readFileSync("/proc/self/status", "utf8"))[1])']).toString());
  assert.ok(fresh > 0);
  const ts = write('bound.config.ts', "interface A { n: number }\nconst a: A = { n: 1 };\nexport default { apps: [{ name: 'bound', script: 'app.js', instances: a.n }] };\n");
  const child = new URL('../../lib/config/js-config-child.mjs', import.meta.url).pathname;
  const r = spawnSync('prlimit', [`--data=${(fresh + 128 * 1024) * 1024}`, '--', process.execPath, child, ts], { stdio: ['ignore', 'ignore', 'pipe', 'pipe'], timeout: 20_000 });
  assert.equal(r.status, 0, String(r.stderr).slice(0, 500));
  assert.deepEqual(JSON.parse(String(r.output[3])), { data: { apps: [{ name: 'bound', script: 'app.js', instances: 1 }] } });
});

test('problems in a JS file name the key path (no positions: the object has none)', async () => {
  const file = write('bad-key.js', "module.exports = { apps: [{ name: 'a', script: 'app.js', interpreter_arg: '--inspect' }] };\n");
  assert.deepEqual(await problemsOf(file), [`${file}: apps[0].interpreter_arg: unknown key; did you mean "interpreter_args"?`]);
});

test('Infinity or NaN in a JS file is refused at its key, not called an empty value', async () => {
  const file = write('infinite.js', "module.exports = { apps: [{ name: 'a', script: 'app.js', instances: Infinity, env: { '': { n: NaN } } }] };\n");
  assert.deepEqual(await problemsOf(file), [`${file}: apps[0].instances: Infinity is not a finite number; write a number such as 4`]);
  const nan = write('nan.js', "module.exports = { apps: [{ name: 'a', script: 'app.js', max_restarts: 0 / 0 }] };\n");
  assert.deepEqual(await problemsOf(nan), [`${nan}: apps[0].max_restarts: NaN is not a finite number; write a number such as 4`]);
});

test('a throw inside the file: one line with the file\'s own frame', async () => {
  const file = write('throws.js', "const url = process.env.NOPE_DB_URL;\nif (!url) throw new Error('NOPE_DB_URL is not set');\nmodule.exports = { apps: [] };\n");
  const problems = await problemsOf(file);
  assert.equal(problems.length, 1);
  assert.match(problems[0], new RegExp(`^${file.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}:2:\\d+: the file threw Error: NOPE_DB_URL is not set; fix the file`));
  assert.doesNotMatch(problems[0], /\n/);
});

test('a syntax error points at its line', async () => {
  const file = write('syntax.js', "module.exports = {\n  apps: [{ name: 'a'\n  ]\n};\n");
  const [p] = await problemsOf(file);
  assert.match(p, /syntax\.js:3: the file threw SyntaxError/);
});

test('exports that are not an object: a number, a string, nothing', async () => {
  for (const [name, body, what] of [['num.cjs', 'module.exports = 42;', 'a number (42)'], ['str.mjs', "export default 'apps';", 'a string ("apps")'], ['none.cjs', 'module.exports = undefined;', 'nothing']]) {
    const file = write(name, `${body}\n`);
    assert.deepEqual(await problemsOf(file), [`${file}: exports ${what}, not a config object; export an object with an apps list (module.exports = { apps: [...] } or export default { apps: [...] })`]);
  }
});

test('what the file writes to stdout does not corrupt its config', async () => {
  const file = write('noisy.js', "console.log('{\"data\": 1}');\nprocess.stdout.write('x'.repeat(100000));\nmodule.exports = { apps: [{ name: 'noisy', script: 'app.js' }] };\n");
  assert.deepEqual(names(await loadEcosystem(file, { cpus: 2 })), ['noisy']);
});

test('a file that never ends is killed at the time bound: one line', async () => {
  // Blocked for good without spinning: the bound is the same, without 0.5 s of a busy CPU.
  const file = write('loop.js', 'Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0);\n');
  const outcome = await evaluateConfigFile(file, { timeoutMs: 500 }); // without the bound, it never returns
  assert.equal(outcome.problem, `${file}: did not finish within 0.5 s (an endless loop, or a promise that never settles?); make the file build its config and end`);
});

test('a file that exits before exporting, and a config that is not JSON', async () => {
  const exits = write('exits.js', "console.error('bye');\nprocess.exit(3);\n");
  assert.deepEqual(await problemsOf(exits), [`${exits}: exited with code 3 before exporting a config (bye); make the file export its config and not exit`]);
  const cyclic = write('cyclic.js', 'const a = { apps: [] }; a.self = a; module.exports = a;\n');
  const [p] = await problemsOf(cyclic);
  assert.match(p, /: its config cannot be written as JSON \(.*circular/i);
});

test('TypeScript that needs a compiler (an enum) is refused at its line, as Node refuses it', async () => {
  const file = write('enum.ts', "const a = 1;\nenum Mode { Fork, Cluster }\nexport default { apps: [] };\n");
  const problems = await problemsOf(file);
  assert.equal(problems.length, 1);
  assert.ok(problems[0].startsWith(`${file}:2:1: the file threw SyntaxError: TypeScript enum is not supported in strip-only mode`), problems[0]);
});

test('a function or a Symbol as a value is refused at its key, not dropped', async () => {
  const fn = write('fn-value.js', "module.exports = { apps: [{ name: 'f', script: 'app.js', instances: () => 4 }] };\n");
  assert.deepEqual(await problemsOf(fn), [`${fn}: apps[0].instances: is a function, which a config cannot hold; write the value itself (instances: 4, not instances: () => 4)`]);
  const sym = write('sym-value.mjs', "export default { apps: [{ name: 's', script: 'app.js', args: ['a', Symbol('b')] }] };\n");
  assert.deepEqual(await problemsOf(sym), [`${sym}: apps[0].args[1]: is a Symbol, which a config cannot hold; write the value itself (instances: 4, not instances: () => 4)`]);
});

test('garbage on the result channel: one line that says so, not "exited with code 0"', async () => {
  const garbage = write('fd3.js', "require('fs').writeSync(3, 'garbage');\nmodule.exports = { apps: [] };\n");
  assert.deepEqual(await problemsOf(garbage), [`${garbage}: its result could not be read (something else wrote to file descriptor 3, where the config is handed over); leave fd 3 alone`]);
});

test('a file that allocates without end is stopped by its heap bound: one line, not V8\'s abort text', async () => {
  // 32 MB arrays: the bound is met in a few allocations, with little garbage collection on the way.
  const hog = write('hog.js', 'const keep = [];\nfor (;;) keep.push(new Array(1 << 22).fill(keep.length));\n');
  // A time bound far above the seconds the heap bound takes: the message says which one hit.
  const outcome = await evaluateConfigFile(hog, { timeoutMs: 60_000 });
  assert.equal(outcome.problem, `${hog}: ran out of memory (more than 256 MB of heap, 512 MB in all) before exporting a config; make the file build a small config`);
});

test('Buffers count too: a file holding 1 GB outside its heap is stopped (RLIMIT_DATA, or the watch on its memory)', async () => {
  // Bounded itself: without the bound, it allocates 1 GB and exports a config.
  const hog = write('buffer-hog.js', 'const keep = [];\nfor (let i = 0; i < 16; i++) keep.push(Buffer.alloc(64 << 20, 1));\nmodule.exports = { apps: [] };\n');
  const outcome = await evaluateConfigFile(hog, { timeoutMs: 60_000 });
  assert.equal(outcome.data, undefined, 'no config from a file that needed 1 GB');
  assert.match(outcome.problem ?? '', /ran out of memory \(more than 256 MB of heap, 512 MB in all\)|used \d+ MB of memory \(with the processes it started\), more than the 512 MB/);
});

test('what the file started that left its group goes with it too: setsid, detached, and orphaned by a double fork', async () => {
  const pids = path.join(dir, 'escapees.pid');
  const file = write('escapes.js', `const { spawn, execFileSync } = require('child_process');
const fs = require('fs');
const detached = spawn('sleep', ['300'], { detached: true, stdio: 'ignore' }); // a session of its own (setsid)
// sh exits at once: its setsid sleep is orphaned (reparented to init) before the evaluation ends.
const orphan = execFileSync('sh', ['-c', 'setsid sleep 301 </dev/null >/dev/null 2>&1 & echo $!'], { encoding: 'utf8' }).trim();
fs.writeFileSync(${JSON.stringify(pids)}, detached.pid + ' ' + orphan);
module.exports = { apps: [{ name: 'x', script: 'app.js' }] };
`);
  const started = await evaluateConfigFile(file);
  assert.ok(started.data, started.problem);
  const [detached, orphan] = fs.readFileSync(pids, 'utf8').split(' ').map(Number);
  try {
    assert.deepEqual(await waitGone([detached, orphan], 5000), [], 'both sleeps are gone');
  } finally {
    for (const pid of [detached, orphan]) try { process.kill(pid, 'SIGKILL'); } catch {} // without the fix: not left running
  }
});

test('what the file started goes with it: its whole process group is killed', async () => {
  const pidFile = path.join(dir, 'grandchild.pid');
  const file = write('spawns.js', `const { spawn } = require('child_process');\nconst c = spawn('sleep', ['300'], { stdio: 'ignore' });\nrequire('fs').writeFileSync(${JSON.stringify(pidFile)}, String(c.pid));\nmodule.exports = { apps: [{ name: 'x', script: 'app.js' }] };\n`);
  assert.deepEqual(names(await loadEcosystem(file, { cpus: 2 })), ['x']);
  const pid = Number(fs.readFileSync(pidFile, 'utf8'));
  assert.deepEqual(await waitGone([pid], 5000), [], 'the sleep the file started is gone');
});

test('out of file descriptors, a JS file is one problem line, not a crash', async () => {
  const file = path.join(dir, 'emfile.config.cjs');
  fs.writeFileSync(file, "module.exports = { apps: [{ name: 'a', script: 'a.js' }] };\n");
  // Every descriptor taken but one: spawn cannot open the child's pipes (EMFILE).
  const script = `
    import fs from 'node:fs';
    const { evaluateConfigFile } = await import(${JSON.stringify(new URL('../../lib/config/js-config.js', import.meta.url).href)});
    const fds = [];
    try { for (;;) fds.push(fs.openSync('/dev/null', 'r')); } catch {}
    fs.closeSync(fds.pop());
    let line;
    try { line = JSON.stringify(await evaluateConfigFile(${JSON.stringify(file)})); } catch (err) { line = \`threw: \${err.message}\`; }
    for (const fd of fds) fs.closeSync(fd);
    console.log(line);`;
  const out = execFileSync('sh', ['-c', 'ulimit -n 64 && exec "$0" --input-type=module -e "$1"', process.execPath, script], { encoding: 'utf8' });
  assert.match(out, /"problem":".*emfile\.config\.cjs: cannot run node to read it \(spawn .*EMFILE\)/);
});
