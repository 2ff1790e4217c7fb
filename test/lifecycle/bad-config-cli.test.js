// Every file of the bad-config corpus, through the real CLI: its specific message, exit
// status 2, no daemon started; and a refused file leaves running apps untouched.
// `{allowed}` and `{cpus}` in an expectation are this machine's CPU set and its size (the
// CLI inherits this process's mask).
import test from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { sandbox, freePort, httpGet, lsJson, FIXTURES } from '../helpers/harness.js';
import { ALL, ALLOWED } from '../helpers/cpus.js';

const dir = path.join(FIXTURES, 'bad-config');
const files = fs.readdirSync(dir).filter((f) => f.endsWith('.yml')).sort();

/** The corpus' `# options:` line, as CLI flags. */
function flags(text) {
  const m = /^# options: (.*)$/m.exec(text);
  if (!m) return [];
  const o = JSON.parse(m[1]);
  const out = [];
  if (o.env) out.push('--env', o.env);
  if (o.only) out.push('--only', o.only.join(','));
  if (o.cpus !== undefined && o.cpus !== os.availableParallelism()) return null; // the CLI counts real CPUs
  return out;
}

test('every bad file is refused by `super start` with its message and exit 2', async (t) => {
  const box = await sandbox(t);
  assert.ok(files.length >= 40, `corpus has ${files.length} files`);
  let checked = 0;
  // Run a few at a time: each is a real CLI process.
  const queue = [...files];
  const worker = async () => {
    for (let f = queue.shift(); f; f = queue.shift()) {
      const text = fs.readFileSync(path.join(dir, f), 'utf8');
      const extra = flags(text);
      if (extra === null) continue;
      const r = await box.cli(['start', f, ...extra], { cwd: dir });
      assert.equal(r.code, 2, `${f}: exit ${r.code}\n${r.stderr}`);
      assert.match(r.stderr, /^super: E_CONFIG: \d+ problems? in /, f);
      for (const [, raw] of text.matchAll(/^# expect: (.*)$/gm)) {
        const want = raw.trim().replaceAll('{allowed}', ALL).replaceAll('{cpus}', String(ALLOWED.length));
        assert.ok(r.stderr.includes(want), `${f}: expected "${want}" in:\n${r.stderr}`);
      }
      checked++;
    }
  };
  await Promise.all([worker(), worker(), worker()]);
  assert.ok(checked >= files.length - 2, `checked ${checked} of ${files.length}`);
  assert.equal(fs.existsSync(path.join(box.home, 'daemon.pid')), false, 'no daemon was started for a bad file');
});

test('a refused file changes nothing that runs', async (t) => {
  const box = await sandbox(t);
  const port = await freePort();
  box.fixture('http-server.js');
  const good = box.write('eco.yml', `apps:\n  - name: web\n    script: http-server.js\n    instances: 2\n    env: { PORT: ${port} }\n`);
  assert.equal((await box.cli(['start', good])).code, 0);
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
  await assert.rejects(client.request('start', { file: bad }), (err) => err.code === 'E_CONFIG' && err.details.problems.length >= 2);
  await assert.rejects(client.request('start', { file: path.join(box.dir, 'nope.yml') }), (err) => err.code === 'E_CONFIG');
});
