// The bad-config corpus through the CLI: each file's specific message, exit status 2, no
// daemon started; and a refused file leaves running apps untouched.
// The whole corpus goes through the CLI's own `start` command in this one process (what
// is tested there is the CLI's check of the file, with this machine's CPUs); a few files,
// one per way the CLI renders or is given options, go through real `super` processes
// (the printed lines, the exit status, --env and --only). `{allowed}` and `{cpus}` in an
// expectation are this machine's CPU set and its size (the CLI inherits this process's mask).
import test from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { sandbox, freePort, httpGet, lsJson, FIXTURES } from '../helpers/harness.js';
import { ALL, ALLOWED } from '../helpers/cpus.js';
import start from '../../lib/ctl/commands/start.js';

const dir = path.join(FIXTURES, 'bad-config');
const files = fs.readdirSync(dir).filter((f) => f.endsWith('.yml')).sort();

/** The corpus' `# options:` line as `super start` options; null when it needs a CPU count this machine lacks. */
function options(text) {
  const m = /^# options: (.*)$/m.exec(text);
  const o = m ? JSON.parse(m[1]) : {};
  if (o.cpus !== undefined && o.cpus !== os.availableParallelism()) return null; // the CLI counts real CPUs
  return { env: o.env, only: o.only?.join(',') };
}

/** The same options as command-line flags. */
const flags = ({ env, only }) => [...(env ? ['--env', env] : []), ...(only ? ['--only', only] : [])];

/** The file's `# expect:` lines, with this machine's CPUs put in. */
const expectations = (text) => [...text.matchAll(/^# expect: (.*)$/gm)]
  .map(([, raw]) => raw.trim().replaceAll('{allowed}', ALL).replaceAll('{cpus}', String(ALLOWED.length)));

test('every bad file is refused by the CLI\'s start with its message and exit status 2, before any daemon', async (t) => {
  const box = await sandbox(t);
  assert.ok(files.length >= 40, `corpus has ${files.length} files`);
  const home = process.env.SUPER_HOME;
  process.env.SUPER_HOME = box.home; // where a wrongly accepted file would start its daemon
  t.after(() => (home === undefined ? delete process.env.SUPER_HOME : (process.env.SUPER_HOME = home)));
  let checked = 0;
  for (const f of files) {
    const text = fs.readFileSync(path.join(dir, f), 'utf8');
    const opts = options(text);
    if (opts === null) continue;
    const err = await start(path.join(dir, f), [], opts).then(() => assert.fail(`${f} was accepted`), (e) => e);
    assert.equal(err.code, 'E_CONFIG', `${f}: ${err.stack}`);
    assert.equal(err.exitStatus, 2, f);
    assert.match(err.message, /^\d+ problems? in /, f);
    const output = [err.message, ...err.details.problems].join('\n');
    for (const want of expectations(text)) assert.ok(output.includes(want), `${f}: expected "${want}" in:\n${output}`);
    checked++;
  }
  assert.ok(checked >= files.length - 2, `checked ${checked} of ${files.length}`);
  assert.equal(fs.existsSync(box.home), false, 'no daemon was started for a bad file');
});

// One file per way through the CLI: several problems, --env, --only, the CPUs the CLI may use.
const CLI_FILES = ['multiple-problems.yml', 'env-not-defined.yml', 'only-unknown.yml', 'cpu-affinity-outside.yml', 'instances-no-worker.yml'];

test('`super start` prints a bad file\'s problems one per line and exits 2, starting no daemon', async (t) => {
  const box = await sandbox(t);
  await Promise.all(CLI_FILES.map(async (f) => {
    const text = fs.readFileSync(path.join(dir, f), 'utf8');
    const opts = options(text);
    if (opts === null) return;
    const r = await box.cli(['start', f, ...flags(opts)], { cwd: dir });
    assert.equal(r.code, 2, `${f}: exit ${r.code}\n${r.stderr}`);
    assert.equal(r.stdout, '', f);
    const [first, ...rest] = r.stderr.trimEnd().split('\n');
    assert.match(first, /^super: E_CONFIG: \d+ problems? in /, f);
    assert.equal(rest.length, Number(/(\d+) problems? in/.exec(first)[1]), `${f}: one line per problem:\n${r.stderr}`);
    for (const line of rest) assert.match(line, /^ {2}\S/, `${f}: a problem line is indented: ${line}`);
    for (const want of expectations(text)) assert.ok(r.stderr.includes(want), `${f}: expected "${want}" in:\n${r.stderr}`);
  }));
  assert.equal(fs.existsSync(path.join(box.home, 'daemon.pid')), false, 'no daemon was started for a bad file');
});

test('a refused file changes nothing that runs', async (t) => {
  const box = await sandbox(t);
  const port = await freePort();
  box.fixture('http-server.js');
  const good = box.write('eco.yml', `apps:\n  - name: web\n    script: http-server.js\n    instances: 2\n    env: { PORT: ${port} }\n`);
  await box.start(good);
  const before = await lsJson(box);
  const bad = box.write('eco.yml', `apps:\n  - name: web\n    script: http-server.js\n    instances: 3\n    env: { PORT: ${port} }\n  - name: web\n    script: missing.js\n`);
  const r = await box.cli(['start', bad]);
  assert.equal(r.code, 2);
  assert.match(r.stderr, /apps\[1\]\.name: .*duplicate|duplicate.*apps\[1\]/i);
  assert.match(r.stderr, /apps\[1\]\.script: file not found/);
  const after = await lsJson(box);
  assert.deepEqual(after, { apps: after.apps.map((a) => ({ ...a })) });
  assert.deepEqual(after.apps.map((a) => a.workers.map((w) => w.pid)), before.apps.map((a) => a.workers.map((w) => w.pid)));
  assert.equal(after.apps[0].instances, 2);
  assert.match((await httpGet(port)).body, /app=web/);

  // The daemon checks too: a file that turns bad between the CLI's check and the daemon's.
  const client = await box.client();
  t.after(() => client.close());
  await assert.rejects(client.request('start', { file: bad }), /** @param {any} err */ (err) => err.code === 'E_CONFIG' && err.details.problems.length >= 2);
  await assert.rejects(client.request('start', { file: path.join(box.dir, 'nope.yml') }), /** @param {any} err */ (err) => err.code === 'E_CONFIG');
});
