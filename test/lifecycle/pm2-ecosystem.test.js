// A PM2 user's ecosystem files on a real daemon: JS/TS/JSON formats, PM2's keys with their
// effect on real workers, and bad files refused in one line (exit 2) with running apps
// untouched. One daemon for the whole file; subtests run in order.
import test from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import { sandbox, freePort, httpGet, lsJson, watchEvents, describeJson } from '../helpers/harness.js';
import { request } from '../helpers/requests.js';
import { startLoad, answeredBy } from '../helpers/load.js';

const SERVER = `const http = require('http');
http.createServer((req, res) => res.end(JSON.stringify({
  slot: process.env.NODE_APP_INSTANCE, pid: process.pid, port: process.env.PORT, execArgv: process.execArgv,
  greeting: process.env.GREETING ?? null, version: process.env.VERSION ?? null,
}))).listen(Number(process.env.PORT), '127.0.0.1');
`;
const PYTHON = `import os, http.server
class Handler(http.server.BaseHTTPRequestHandler):
    def do_GET(self):
        self.send_response(200)
        self.end_headers()
        self.wfile.write(("python " + os.environ["PORT"]).encode())
    def log_message(self, *args):
        pass
http.server.HTTPServer(("127.0.0.1", int(os.environ["PORT"])), Handler).serve_forever()
`;

/** GET that waits (bounded) for a fork-mode worker to start listening. */
async function getWhenUp(port, timeout = 20000) {
  const until = Date.now() + timeout;
  for (;;) {
    try {
      return await httpGet(port);
    } catch (err) {
      if (Date.now() > until) throw new Error(`nothing answers on ${port}: ${err.message}`);
      await new Promise((r) => setTimeout(r, 100));
    }
  }
}
const json = async (port) => JSON.parse((await getWhenUp(port)).body);
const pidsOf = async (box) => Object.fromEntries((await lsJson(box)).apps.map((a) => [a.name, a.workers.map((w) => w.pid)]));

test('PM2 ecosystem files on a real daemon', async (t) => {
  const box = await sandbox(t);
  box.write('server.cjs', SERVER);
  box.write('worker.py', PYTHON);
  box.write('VERSION', 'v1\n');
  const [base, later, py, envy, cron, ts, mjs, jsonPort] = await Promise.all(Array.from({ length: 8 }, () => freePort()));
  // The daemon is started by this first command, whose environment has no GREETING.
  const cjs = box.write('ecosystem.config.js', `const fs = require('fs');
const path = require('path');
console.log('config says hello on stdout');
module.exports = {
  apps: [
    { name: 'api', script: 'server.cjs', instances: 2, exec_mode: 'cluster_mode', increment_var: 'PORT',
      env: { PORT: ${base} }, source_map_support: true, namespace: 'web', vizion: false, combine_logs: true },
    { name: 'later', script: path.join(__dirname, 'server.cjs'), autostart: false, env: { PORT: ${later} } },
    { name: 'py', script: 'worker.py', interpreter: 'python3', interpreter_args: '-u', env: { PORT: ${py} } },
  ],
  deploy: { production: { user: 'node', host: 'example.com', ref: 'origin/main', repo: 'git@example.com:x.git', path: '/srv/app' } },
};
`);

  await t.test('CJS file with PM2 keys: each key has its effect on real workers', async () => {
    const r = await box.cli(['start', cjs], { cwd: box.dir, env: { GREETING: '' } });
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stderr, /warning: .*ecosystem\.config\.js: deploy: PM2-only key \(pm2 deploy; keep your deploy tool, then `super reload <app>`\): ignored/);
    assert.match(r.stderr, /warning: .*ecosystem\.config\.js: apps\[0\]\.vizion: PM2-only key/);
    // increment_var: slot i listens on PORT + i
    const [w0, w1] = [await json(base), await json(base + 1)];
    assert.deepEqual([w0.slot, w0.port, w1.slot, w1.port], ['0', String(base), '1', String(base + 1)]);
    assert.ok(w0.execArgv.includes('--enable-source-maps'), `source_map_support: ${w0.execArgv}`);
    // interpreter python3 in fork mode, with interpreter_args
    assert.equal((await getWhenUp(py)).body, `python ${py}`);
    const ls = await lsJson(box);
    const byName = Object.fromEntries(ls.apps.map((a) => [a.name, a]));
    assert.equal(byName.api.namespace, 'web');
    assert.equal(byName.py.namespace, 'default');
    // autostart: false: registered, stopped, nothing listening
    assert.equal(byName.later.status, 'stopped');
    assert.equal(byName.later.workers.length, 0);
    await assert.rejects(httpGet(later, '/', { timeout: 1000 }));
  });

  // Right after the first file: its apps are the running ones to keep, and no other
  // test's workers sit idle through the 10 s time bound.
  await t.test('bad files: one E_CONFIG line each, exit 2, running apps untouched', async () => {
    const before = await pidsOf(box);
    assert.deepEqual(Object.keys(before).sort(), ['api', 'later', 'py'], 'the first file\'s apps are there');
    assert.equal(before.api.length, 2);
    /** @type {[string, string, RegExp][]} */
    const cases = [
      // One refusal of each kind the CLI meets: JSON's own, a JS file's throw, the time bound (what
      // a file may export, and the other problems, are checked on loadEcosystem in test/config).
      // (a trailing comma or a comment is taken, as PM2 takes it; a missing comma is not)
      ['syntax.json', '{\n  "apps": [\n    { "name": "x" "script": "server.cjs" }\n  ]\n}\n', /syntax\.json:3:19: JSON syntax error: expected "," or "\}", found/],
      ['throws.config.mjs', "const x = 1;\nthrow new Error('no config for you');\n", /throws\.config\.mjs:2:\d+: the file threw Error: no config for you/],
      // Blocked without spinning (a busy loop would burn 10 s of CPU in each of the CLI's and the daemon's readers).
      ['blocks.config.js', 'Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0);\n', /blocks\.config\.js: did not finish within 10 s/],
    ];
    for (const [name, text, expected] of cases) {
      const r = await box.cli(['start', box.write(name, text)], { cwd: box.dir });
      assert.equal(r.code, 2, `${name}: ${r.stderr}`);
      assert.match(r.stderr, /E_CONFIG/);
      assert.match(r.stderr, expected);
      assert.equal(r.stderr.split('\n').filter((l) => / the file threw | exports | did not finish | JSON syntax error/.test(l)).length, 1, r.stderr);
    }
    assert.deepEqual(await pidsOf(box), before);
  });

  await t.test('a JS file runs with the caller\'s environment at start, and again at reload', async () => {
    const file = box.write('envy.config.js', `const fs = require('fs');
const version = fs.readFileSync(__dirname + '/VERSION', 'utf8').trim();
if (version === 'bad') throw new Error('VERSION says bad');
module.exports = { apps: [{ name: 'envy', script: 'server.cjs', env: { PORT: ${envy}, GREETING: process.env.GREETING, VERSION: version } }] };
`);
    await box.start(file, { env: { GREETING: 'hello from the shell' } });
    assert.deepEqual(await json(envy).then((b) => [b.greeting, b.version]), ['hello from the shell', 'v1']);
    box.write('VERSION', 'v2\n');
    // A reload from an environment without GREETING: the one given at start is kept.
    const re = await request(box, 'reload', { target: ['envy'] });
    assert.ok(re.apps.every((a) => a.ok), JSON.stringify(re));
    assert.deepEqual(await json(envy).then((b) => [b.greeting, b.version]), ['hello from the shell', 'v2']);
    // The file now throws at reload: refused in one line, the workers keep serving.
    const before = await pidsOf(box);
    box.write('VERSION', 'bad\n');
    const bad = await box.cli(['reload', 'envy']);
    assert.equal(bad.code, 2, bad.stderr);
    assert.match(bad.stderr, /envy\.config\.js:3:\d+: the file threw Error: VERSION says bad/);
    assert.deepEqual(await pidsOf(box), before);
    assert.equal((await json(envy)).version, 'v2');
    await request(box, 'delete', { target: ['envy'] }); // no idle workers through the later tests
  });

  await t.test('TypeScript (interfaces, export default), ESM and JSON files start', async () => {
    const tsFile = box.write('ecosystem.config.ts', `import type { IncomingMessage } from 'node:http';
interface AppConfig { name: string; script: string; instances?: number | 'max'; env?: Record<string, string | number> }
const apps: AppConfig[] = [{ name: 'ts', script: 'server.cjs', instances: 2, env: { PORT: ${ts} } }];
export default { apps };
`);
    const mjsFile = box.write('ecosystem.config.mjs', `import path from 'node:path';
export default { apps: [{ name: 'mjs', script: path.resolve('server.cjs'), env: { PORT: ${mjs} } }] };
`);
    const jsonFile = box.write('ecosystem.json', JSON.stringify({ apps: [{ name: 'json', script: 'server.cjs', exec_mode: 'fork_mode', env: { PORT: jsonPort } }] }, null, 2));
    // The CLI's own check of a TypeScript file; the others in-process (box.start rejects a refused file).
    const r = await box.cli(['start', tsFile], { cwd: box.dir });
    assert.equal(r.code, 0, r.stderr);
    for (const f of [mjsFile, jsonFile]) await box.start(f);
    assert.equal((await json(ts)).port, String(ts));
    assert.equal((await json(mjs)).port, String(mjs));
    assert.equal((await json(jsonPort)).port, String(jsonPort));
    const ls = Object.fromEntries((await lsJson(box)).apps.map((a) => [a.name, a]));
    assert.equal(ls.ts.workers.filter((w) => w.status === 'online').length, 2);
    await request(box, 'delete', { target: ['ts', 'mjs', 'json'] });
  });

  await t.test('uid/gid: workers run as that user, fork and cluster alike (daemon as root)', { skip: process.getuid() !== 0 && 'the daemon does not run as root' }, async () => {
    fs.chmodSync(box.dir, 0o755); // the workers, as nobody, read their script from here
    const [forkPort, clusterPort] = [await freePort(), await freePort()];
    const file = box.write('users.config.js', `module.exports = { apps: [
  { name: 'as-nobody', script: 'server.cjs', exec_mode: 'fork', uid: 'nobody', env: { PORT: ${forkPort} } },
  { name: 'as-nobody-cluster', script: 'server.cjs', instances: 1, exec_mode: 'cluster', user: 'nobody', env: { PORT: ${clusterPort} } },
  { name: 'as-root', script: 'server.cjs', exec_mode: 'fork', env: { PORT: ${await freePort()} } },
] };
`);
    await box.start(file);
    const uidOf = (pid) => Number(/^Uid:\s+(\d+)/m.exec(fs.readFileSync(`/proc/${pid}/status`, 'utf8'))[1]);
    const nobody = Number(fs.readFileSync('/etc/passwd', 'utf8').split('\n').find((l) => l.startsWith('nobody:')).split(':')[2]);
    assert.equal(uidOf((await json(forkPort)).pid), nobody);
    const apps = Object.fromEntries((await lsJson(box)).apps.map((a) => [a.name, a]));
    assert.deepEqual(apps['as-nobody-cluster'].workers.map((w) => uidOf(w.pid)), [nobody]);
    // cluster settings persist between forks: an app without uid is not run as the previous app's user
    assert.deepEqual(apps['as-root'].workers.map((w) => uidOf(w.pid)), [0]);
    await request(box, 'delete', { target: ['as-nobody', 'as-nobody-cluster', 'as-root'] });
  });

  await t.test('cron_restart: scheduled rolling reloads, 0 failed requests under load', async () => {
    const file = box.write('cron.config.js', `module.exports = { apps: [{ name: 'cron', script: 'server.cjs', instances: 2,
  cron_restart: '*/2 * * * * *', probation: '200ms', env: { PORT: ${cron} } }] };
`);
    const events = await watchEvents(box, t, ['reload']);
    await box.start(file);
    const answers = answeredBy();
    // A new connection per request: under reuseport (auto's pick on Node 22+) the kernel spreads
    // them over every worker's socket, where a few keep-alive connections could all hash to one.
    const load = startLoad({ port: cron, connections: 2, keepAlive: false, maxMs: 60000, observer: answers.observer });
    t.after(() => load.stop());
    const describe = await describeJson(box, 'cron');
    assert.equal(describe.cron_restart.pattern, '*/2 * * * * *');
    assert.ok(Date.parse(describe.cron_restart.next) > Date.now() - 1000, describe.cron_restart.next);
    const done = (n) => (e) => e.app === 'cron' && e.step === 'done' && events.seen.filter((x) => x.app === 'cron' && x.step === 'done').length >= n;
    await events.waitFor(done(2), 30000, 'two cron reloads');
    // The load ran across the reloads: workers they replaced answered it, and so do the ones now.
    const now = (await lsJson(box)).apps.find((a) => a.name === 'cron').workers.map((w) => w.pid);
    await answers.reached(now, 'the workers after two cron reloads');
    const result = await load.stop();
    t.diagnostic(`${result.ok} requests answered, failures ${JSON.stringify(result.errors)}; by pid ${JSON.stringify(Object.fromEntries(answers.pids))}`);
    assert.ok(events.seen.filter((e) => e.app === 'cron' && e.step === 'done').every((e) => e.ok), JSON.stringify(events.seen));
    assert.ok([...answers.pids.keys()].some((pid) => !now.includes(pid)), `replaced workers answered too: ${JSON.stringify(Object.fromEntries(answers.pids))}`);
    assert.equal(result.failed, 0, JSON.stringify(result.errors));
  });
});
