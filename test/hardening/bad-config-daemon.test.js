// The whole bad-config corpus, straight to a running daemon (no CLI check in front):
// each file refused by `start` and by a `reload` that re-reads it, with E_CONFIG and
// one-line problems (at `start`, each of the file's `# expect:` lines, with `{allowed}` and
// `{cpus}` the daemon's CPUs); the running app loses nothing (same workers, no restart, serving).
import test from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { sandbox, freePort, httpGet, lsJson, FIXTURES } from '../helpers/harness.js';
import { ALL, ALLOWED } from '../helpers/cpus.js';

const dir = path.join(FIXTURES, 'bad-config');
const files = fs.readdirSync(dir).filter((f) => f.endsWith('.yml')).sort();

/** The corpus file's `# options:` as start args; null when it needs a CPU count this machine lacks. */
function options(text) {
  const m = /^# options: (.*)$/m.exec(text);
  const o = m ? JSON.parse(m[1]) : {};
  if (o.cpus !== undefined && o.cpus !== os.availableParallelism()) return null;
  return { env: o.env, only: o.only };
}

test('a running daemon refuses every bad file and keeps its app as it was', async (t) => {
  const box = await sandbox(t);
  const port = await freePort();
  box.fixture('http-server.js');
  const good = `apps:\n  - name: web\n    script: http-server.js\n    instances: 2\n    env: { PORT: ${port} }\n`;
  const eco = box.write('eco.yml', good);
  assert.equal((await box.cli(['start', eco])).code, 0);
  const before = (await lsJson(box)).apps;
  const client = await box.client();
  t.after(() => client.close());

  let started = 0;
  let reloaded = 0;
  for (const f of files) {
    const text = fs.readFileSync(path.join(dir, f), 'utf8');
    const opts = options(text);
    if (opts === null) continue;
    const refused = (err) => {
      assert.equal(err.code, 'E_CONFIG', `${f}: ${err.code} ${err.message}`);
      assert.ok(err.details.problems.length >= 1, f);
      for (const p of err.details.problems) assert.doesNotMatch(p, /\n/, `${f}: one line per problem`);
      return true;
    };
    // The daemon inherited this process's CPUs (through the CLI that started it).
    const expects = [...text.matchAll(/^# expect: (.*)$/gm)].map(([, e]) => e.trim().replaceAll('{allowed}', ALL).replaceAll('{cpus}', String(ALLOWED.length)));
    await assert.rejects(client.request('start', { file: path.join(dir, f), ...opts }), /** @param {any} err */ (err) => {
      refused(err);
      const output = [err.message, ...err.details.problems].join('\n');
      for (const want of expects) assert.ok(output.includes(want), `${f}: expected "${want}" in:\n${output}`);
      return true;
    });
    started++;
    // the app's own file turns bad: its reload is refused before anything changes
    if (opts.env || opts.only) continue;
    fs.writeFileSync(eco, text);
    await assert.rejects(client.request('reload', { target: 'web' }), refused);
    reloaded++;
  }
  assert.ok(started >= 40 && reloaded >= 40, `checked ${started} starts, ${reloaded} reloads`);

  const after = (await lsJson(box)).apps;
  assert.deepEqual(after.map((a) => a.name), ['web'], 'no app added or removed');
  assert.deepEqual(after[0].workers.map((w) => [w.pid, w.restarts, w.status]), before[0].workers.map((w) => [w.pid, 0, 'online']));
  assert.equal(after[0].instances, 2);
  assert.match((await httpGet(port)).body, /app=web/);
  // and the file, good again, reloads
  fs.writeFileSync(eco, good);
  assert.equal((await client.request('reload', { target: 'web' })).apps[0].ok, true);
});
