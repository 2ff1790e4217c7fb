// A PM2 `script` as PM2 runs it, on one real daemon (test/fixtures/pm2/scripts): what
// `pm2 init` and `pm2 init simple` write (a directory as script), command lines (`node
// server.js ...`, `npm run serve`), a Node program without .js (bin/www, a
// node_modules/.bin link) in cluster mode, and npm in cluster mode (its package script's
// `node <file>` run directly in cluster mode, or npm in fork mode), each answering requests.
import test from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { sandbox, freePort, httpGet, lsJson, describeJson, FIXTURES, ROOT } from '../helpers/harness.js';

const FIXTURE = path.join(FIXTURES, 'pm2', 'scripts');

/** The app's answer ({mode, args, entry}); npm takes a while to start node, so it is asked again (bounded). */
async function answer(port) {
  for (let i = 0; i < 100; i++) {
    const r = await httpGet(port, '/', { timeout: 2000 }).catch(() => null);
    if (r) return JSON.parse(r.body);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  assert.fail(`nothing answered on port ${port}`);
}

/** The fixture file's lines that are not in PM2's template (the names and ports added). */
function addedLines(fixture, template) {
  const norm = (text) => text.split('\n').map((l) => l.trim().replace(/,$/, ''));
  const tpl = new Set(norm(fs.readFileSync(template, 'utf8')));
  return norm(fs.readFileSync(fixture, 'utf8')).filter((l) => l && !tpl.has(l));
}

test('PM2 scripts: pm2 init files, command lines, Node programs without .js, npm in cluster mode', async (t) => {
  const box = await sandbox(t);
  const project = path.join(box.dir, 'project'); // beside SUPER_HOME: `watch: '.'` must not see the logs
  fs.cpSync(FIXTURE, project, { recursive: true });
  box.write('project/node_modules/serve-fixture/cli.js', "require('../../server.js');\n");
  fs.mkdirSync(path.join(project, 'node_modules/.bin'));
  fs.symlinkSync('../serve-fixture/cli.js', path.join(project, 'node_modules/.bin/serve-fixture'));
  const names = ['INDEX', 'WORKER', 'APP1', 'CMD_NODE', 'CMD_NPM', 'WWW', 'LINK', 'NPM_NODE', 'NPM_OTHER'];
  const port = {};
  for (const n of names) port[n] = await freePort();
  const env = Object.fromEntries(names.map((n) => [`PORT_${n}`, String(port[n])]));
  // In-process starts (the CLI's launch code and start request; rejected when an app fails):
  // resolves with the warnings `super start` would print. The CLI's start of a file is under
  // test in pm2-corpus.test.js.
  const start = async (file) => (await box.start(path.join(project, file), { env })).warnings ?? [];
  const workers = (ls, name) => ls.apps.find((a) => a.name === name)?.workers.filter((w) => w.status === 'online').length;

  await t.test('what pm2 init and pm2 init simple write: a directory as script runs its index.js', async () => {
    const templates = path.join(ROOT, 'node_modules/pm2/lib/templates');
    if (fs.existsSync(templates)) {
      // The fixtures are PM2's templates with a name and a port per app, nothing else changed.
      for (const [fixture, tpl] of [['pm2-init.config.js', 'ecosystem.tpl'], ['pm2-init-simple.config.js', 'ecosystem-simple.tpl']]) {
        for (const line of addedLines(path.join(FIXTURE, fixture), path.join(templates, tpl))) assert.match(line, /^(\/\/|name\b|env\b)/, `${fixture}: ${line}`);
      }
    }
    const warnings = await start('pm2-init.config.js');
    assert.ok(warnings.some((w) => /deploy: PM2-only key/.test(w)), warnings.join('\n'));
    const worker = await answer(port.WORKER);
    assert.equal(worker.entry, path.join(project, 'service-worker/index.js'));
    // No instances: fork mode, as PM2 runs it (Common.sink.determineExecMode).
    assert.equal((await answer(port.INDEX)).mode, 'fork');
    assert.deepEqual(await start('pm2-init-simple.config.js'), []);
    assert.equal((await answer(port.APP1)).entry, path.join(project, 'app.js'));
  });

  await t.test('command lines run as PM2 runs them; bin/www and a .bin link are Node programs (cluster mode with instances, as in PM2)', async () => {
    assert.deepEqual(await start('commands.config.js'), []);
    assert.deepEqual(await answer(port.CMD_NODE), { ...(await answer(port.CMD_NODE)), mode: 'fork', args: ['--tag', 'cmd'], entry: path.join(project, 'server.js') });
    assert.deepEqual((await answer(port.CMD_NPM)).args, ['--via', 'npm-run-serve']);
    const www = await answer(port.WWW);
    assert.deepEqual([www.mode, www.entry], ['cluster', path.join(project, 'bin/www')]);
    const link = await answer(port.LINK);
    assert.deepEqual([link.mode, link.entry], ['fork', path.join(project, 'node_modules/.bin/serve-fixture')]);
    const ls = await lsJson(box);
    assert.equal(workers(ls, 'www'), 2);
    const d = await describeJson(box, 'cmd-npm');
    assert.deepEqual([path.basename(d.config.script), d.config.args, d.exec_mode], ['npm', ['run', 'serve'], 'fork']);
  });

  await t.test('npm in cluster mode: node <file> of the package script in cluster mode, else npm in fork mode; one warning each', async () => {
    const warnings = await start('npm-cluster.config.js');
    assert.equal(warnings.length, 2, warnings.join('\n'));
    assert.match(warnings[0], /apps\[0\]\.script: npm start in cluster mode would make npm, not its child, the worker; superd runs the package script's command \(node \.\.\/server\.js --via npm-start\) itself in cluster mode/);
    assert.match(warnings[1], /apps\[1\]\.script: npm start in cluster mode .*superd runs it in fork mode instead/);
    const direct = await answer(port.NPM_NODE);
    assert.deepEqual([direct.mode, direct.args], ['cluster', ['--via', 'npm-start']]);
    const shell = await answer(port.NPM_OTHER);
    assert.deepEqual([shell.mode, shell.args], ['fork', ['--via', 'shell']]);
    assert.equal(workers(await lsJson(box), 'npm-direct'), 2);
  });
});
