// super save / resurrect / daemon --resurrect, and the dump's safety rules
// (PM2 #2653, #2827: a dump replaced by an empty list loses every app at the next boot).
import test from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { sandbox, freePort, httpGet, lsJson, waitGone, describeJson } from '../helpers/harness.js';
import { writeDump, readDump, parseDump, dumpPath, bakPath } from '../../lib/master/saved/dump.js';
import { superProcess } from '../helpers/super-process.js';
import { request, killDaemon } from '../helpers/requests.js';
import { eventually } from '../helpers/wait.js';
import { ensureDaemon } from '../../lib/ctl/launch-daemon.js';

async function twoApps(box) {
  const port = await freePort();
  box.fixture('http-server.js');
  box.fixture('idle.js');
  const eco = box.write('eco.yml', `
apps:
  - name: web
    script: http-server.js
    instances: 1
    env: { PORT: ${port}, GREETING: saved }
  - name: idle
    script: idle.js
    ready_on: spawn
    min_uptime: 200ms
`);
  await box.start(eco);
  return { port, eco };
}

const dumpFile = (box) => path.join(box.home, 'dump.json');
const appsOf = async (box) => (await lsJson(box)).apps.map((a) => [a.name, a.status, a.workers.length]);

test('save writes resolved configs atomically; resurrect brings the same apps back after kill', async (t) => {
  const box = await sandbox(t);
  const { port } = await twoApps(box);
  await request(box, 'scale', { app: 'web', count: '2' });

  const s1 = await box.cli(['save']);
  assert.equal(s1.code, 0, s1.stderr);
  assert.match(s1.stdout, /saved 2 app\(s\) to .*dump\.json: web, idle/);
  const dump = JSON.parse(fs.readFileSync(dumpFile(box), 'utf8'));
  assert.equal(dump.superd, 1);
  const web = dump.apps.find((a) => a.config.name === 'web');
  assert.equal(web.config.instances, 2, 'the scaled count is saved');
  assert.equal(web.config.env.GREETING, 'saved');
  assert.ok(path.isAbsolute(web.config.script));
  assert.equal(fs.statSync(dumpFile(box)).mode & 0o777, 0o600);
  assert.equal(fs.existsSync(`${dumpFile(box)}.bak`), false, 'no previous dump yet');

  const s2 = await box.cli(['save']);
  assert.equal(s2.code, 0, s2.stderr);
  assert.match(s2.stdout, /previous dump kept as .*dump\.json\.bak/);
  assert.deepEqual(JSON.parse(fs.readFileSync(`${dumpFile(box)}.bak`, 'utf8')).apps, dump.apps);
  assert.deepEqual(fs.readdirSync(box.home).filter((f) => f.endsWith('.tmp')), [], 'no temp file left');

  const daemon = await killDaemon(box);
  assert.deepEqual(JSON.parse(fs.readFileSync(dumpFile(box), 'utf8')).apps, dump.apps, 'kill leaves the dump alone');

  const r = await box.cli(['resurrect']);
  assert.equal(r.code, 0, r.stderr);
  assert.match(r.stdout, /started web/);
  assert.notEqual(box.daemonPid(), daemon);
  assert.deepEqual(await appsOf(box), [['web', 'online', 2], ['idle', 'online', 1]]);
  assert.match((await httpGet(port)).body, /app=web/);

  // Resurrecting again leaves running apps alone.
  const again = await box.cli(['resurrect']);
  assert.equal(again.code, 0, again.stderr);
  assert.match(again.stdout, /web is already running/);
});

test('resurrect normalizes each app again from its ecosystem file, keeping the scale count; a file gone falls back to the saved config, saying so', async (t) => {
  const box = await sandbox(t);
  const { eco } = await twoApps(box);
  await request(box, 'scale', { app: 'web', count: '2' });
  await request(box, 'save');
  const describeWeb = () => describeJson(box, 'web');

  await killDaemon(box);
  fs.writeFileSync(eco, fs.readFileSync(eco, 'utf8').replace('GREETING: saved', 'GREETING: edited'));
  const r = await box.cli(['resurrect']);
  assert.equal(r.code, 0, r.stderr);
  assert.doesNotMatch(r.stderr, /warning/);
  const web = await describeWeb();
  assert.equal(web.config.env.GREETING, 'edited', 'the file as it is now');
  assert.deepEqual([web.config.instances, web.workers.length], [2, 2], 'the scale count of the save');

  // The apps deleted, the next resurrect (this daemon's) starts them from the dump again.
  await request(box, 'delete', { target: ['all'] });
  fs.rmSync(eco);
  const gone = await box.cli(['resurrect']);
  assert.equal(gone.code, 0, gone.stderr);
  for (const name of ['web', 'idle']) {
    assert.match(gone.stderr, new RegExp(`super: warning: ${name} started from the config saved in .*dump\\.json: .*eco\\.yml cannot be used \\(.*no such file`));
  }
  assert.equal((await describeWeb()).config.env.GREETING, 'saved', 'the saved config');
  assert.deepEqual(await appsOf(box), [['web', 'online', 2], ['idle', 'online', 1]]);
});

test('an empty list never replaces a good dump (stopped apps, stopping daemon); --force does', async (t) => {
  const box = await sandbox(t);
  await twoApps(box);
  await request(box, 'save');
  const before = fs.readFileSync(dumpFile(box), 'utf8');

  await request(box, 'stop', { target: ['all'] });
  const r = await box.cli(['save']);
  assert.equal(r.code, 1);
  assert.match(r.stderr, /^super: E_DUMP: no app is running: saving would replace the 2 app\(s\) in .*dump\.json with an empty list; run `super save --force`/);
  assert.equal(fs.readFileSync(dumpFile(box), 'utf8'), before, 'dump untouched');

  // A daemon that stops (SIGTERM) or dies (SIGKILL) does not write the dump either.
  const daemon = box.daemonPid();
  process.kill(daemon, 'SIGTERM');
  assert.deepEqual(await waitGone([daemon]), []);
  assert.equal(fs.readFileSync(dumpFile(box), 'utf8'), before, 'dump untouched by a stopping daemon');

  // A daemon with no app: were it to write its list as it dies, the dump would be empty.
  (await ensureDaemon(box.home)).close();
  process.kill(box.daemonPid(), 'SIGKILL');
  assert.equal(fs.readFileSync(dumpFile(box), 'utf8'), before, 'dump untouched by a dying daemon');
  await waitGone([box.daemonPid()]);

  (await ensureDaemon(box.home)).close(); // a daemon with no app, for the forced save
  await request(box, 'save', { force: true });
  assert.equal(JSON.parse(fs.readFileSync(dumpFile(box), 'utf8')).apps.length, 0);
  assert.equal(fs.readFileSync(`${dumpFile(box)}.bak`, 'utf8'), before, 'the good dump is the .bak');
});

test('a corrupt dump is a clear error naming the .bak; a missing one says to save', async (t) => {
  const box = await sandbox(t);
  const missing = await box.cli(['resurrect']);
  assert.equal(missing.code, 1);
  assert.match(missing.stderr, /^super: E_DUMP: no saved process list at .*dump\.json; run `super save`/);

  await twoApps(box);
  await request(box, 'save');
  await request(box, 'save');
  await killDaemon(box);
  fs.writeFileSync(dumpFile(box), '{"superd": 1, "apps": [');
  const r = await box.cli(['resurrect']);
  assert.equal(r.code, 1);
  const bak = `${dumpFile(box)}.bak`;
  assert.equal(r.stderr.split('\n').filter(Boolean).length, 1, 'one line');
  assert.ok(r.stderr.startsWith(`super: E_DUMP: ${dumpFile(box)} is corrupt (not valid JSON`), r.stderr);
  assert.ok(r.stderr.includes(`the previous dump is ${bak}: \`cp ${bak} ${dumpFile(box)}\``), r.stderr);
  assert.equal(box.daemonPid(), null, 'nothing started, not even a daemon');

  // Valid JSON of the wrong shape is corrupt too.
  fs.writeFileSync(dumpFile(box), JSON.stringify({ superd: 1, apps: [{ config: { name: 'x', script: 'rel.js', instances: 1 } }] }));
  const shape = await box.cli(['resurrect']);
  assert.equal(shape.code, 1);
  assert.match(shape.stderr, /E_DUMP: .*is corrupt \(apps\[0\] has no absolute script path/);

  // Following the message works.
  fs.copyFileSync(bak, dumpFile(box));
  const ok = await box.cli(['resurrect']);
  assert.equal(ok.code, 0, ok.stderr);
  assert.deepEqual((await appsOf(box)).map((a) => a[0]), ['web', 'idle']);
});

test('a corrupt dump never goes over the good .bak; an empty save over it needs --force', async (t) => {
  const box = await sandbox(t);
  await twoApps(box);
  await request(box, 'save');
  await request(box, 'save');
  const bak = `${dumpFile(box)}.bak`;
  const good = fs.readFileSync(bak, 'utf8');
  const broken = '{"superd": 1, "apps": [';
  const asides = () => fs.readdirSync(box.home).filter((f) => f.startsWith('dump.json.corrupt-')).sort();

  // Apps running: the new dump is written, the corrupt one is moved aside, the .bak kept.
  fs.writeFileSync(dumpFile(box), broken);
  const s = await box.cli(['save']);
  assert.equal(s.code, 0, s.stderr);
  assert.equal(JSON.parse(fs.readFileSync(dumpFile(box), 'utf8')).apps.length, 2);
  assert.equal(fs.readFileSync(bak, 'utf8'), good, 'the .bak is still the last good dump');
  assert.doesNotMatch(s.stdout, /previous dump kept/, 'the corrupt dump is not called the previous one');
  assert.equal(asides().length, 1);
  assert.equal(fs.readFileSync(path.join(box.home, asides()[0]), 'utf8'), broken, 'the corrupt dump is kept for inspection');
  assert.ok(s.stdout.includes(`the corrupt dump was moved aside as ${path.join(box.home, asides()[0])}; ${dumpFile(box)}.bak is unchanged`), s.stdout);

  // No app running: refused as over a good dump (it may have listed apps), nothing touched.
  fs.writeFileSync(dumpFile(box), broken);
  await request(box, 'stop', { target: ['all'] });
  const r = await box.cli(['save']);
  assert.equal(r.code, 1);
  assert.ok(r.stderr.startsWith(`super: E_DUMP: no app is running: saving would replace ${dumpFile(box)}, which is corrupt (not valid JSON`), r.stderr);
  assert.ok(r.stderr.includes(`the previous dump is ${bak} (\`cp ${bak} ${dumpFile(box)}\` to keep it); run \`super save --force\``), r.stderr);
  assert.equal(fs.readFileSync(dumpFile(box), 'utf8'), broken, 'dump untouched');
  assert.equal(fs.readFileSync(bak, 'utf8'), good);
  assert.equal(asides().length, 1);

  // --force saves the empty list; the .bak is still the last good dump.
  const f = await box.cli(['save', '--force']);
  assert.equal(f.code, 0, f.stderr);
  assert.deepEqual(JSON.parse(fs.readFileSync(dumpFile(box), 'utf8')).apps, []);
  assert.equal(fs.readFileSync(bak, 'utf8'), good);
  assert.equal(asides().length, 2);
  assert.deepEqual(fs.readdirSync(box.home).filter((n) => n.endsWith('.tmp')), [], 'no temp file left');
});

// writeDump in this process: no daemon needed to interleave saves.
function dumpHome(t) {
  const home = fs.mkdtempSync(path.join(os.tmpdir(), 'sd-dump-'));
  t.after(() => fs.rmSync(home, { recursive: true, force: true }));
  return home;
}
const saving = (...names) => ({ apps: names.map((name) => ({ config: { name, script: '/srv/app.js', instances: 1 }, clientEnv: {} })), scheduling: 'round-robin', version: 'test' });
const namesIn = (text) => parseDump(text).apps.map((e) => e.config.name);

test('concurrent saves each use a temp file of their own and see the save before them', async (t) => {
  const home = dumpHome(t);
  const results = await Promise.all([writeDump(home, saving('a')), writeDump(home, saving('a', 'b')), writeDump(home, saving('c'))]);
  assert.deepEqual(results.map((r) => r.replaced), [null, 1, 2], 'each save rotated the one before it');
  assert.deepEqual((await readDump(home)).apps.map((e) => e.config.name), ['c']);
  assert.deepEqual(namesIn(fs.readFileSync(bakPath(home), 'utf8')), ['a', 'b']);
  assert.deepEqual(fs.readdirSync(home).filter((n) => n.endsWith('.tmp')), []);
});

test('an unreadable dump counts as corrupt: an empty save is refused, a save keeps the .bak', async (t) => {
  const home = dumpHome(t);
  await writeDump(home, saving('a'));
  await writeDump(home, saving('a', 'b'));
  const good = fs.readFileSync(bakPath(home), 'utf8');
  fs.rmSync(dumpPath(home));
  fs.mkdirSync(dumpPath(home)); // not a regular file: never read, as root or not
  await assert.rejects(writeDump(home, saving()), /** @param {any} err */ (err) => err.code === 'E_DUMP' && /which is corrupt \(cannot read it: ENOTREG: is a directory, not a regular file\)/.test(err.message));
  assert.ok(fs.statSync(dumpPath(home)).isDirectory(), 'left as it was');
  const r = await writeDump(home, saving('c'));
  assert.equal(r.replaced, null);
  assert.ok(fs.statSync(r.corrupt).isDirectory(), 'moved aside');
  assert.deepEqual(namesIn(fs.readFileSync(dumpPath(home), 'utf8')), ['c']);
  assert.equal(fs.readFileSync(bakPath(home), 'utf8'), good);
});

/** Resolves once the daemon of `box` answers (a foreground daemon sends no other signal). */
const waitForDaemon = (box) => eventually(async () => {
  const c = await box.client().catch(() => null);
  c?.close();
  return c !== null;
}, { what: 'the foreground daemon to answer' });

test('super daemon --foreground --resurrect with a corrupt dump says so, naming the .bak, and runs on with no apps', async (t) => {
  const box = await sandbox(t);
  fs.mkdirSync(box.home, { mode: 0o700 });
  const bak = `${dumpFile(box)}.bak`;
  fs.writeFileSync(bak, JSON.stringify({ superd: 1, apps: [] }));
  fs.writeFileSync(dumpFile(box), '{"superd": 1, "apps": [');
  const d = superProcess(box, t, ['daemon', '--foreground', '--resurrect']);
  const [line] = await d.waitFor(/^superd: E_DUMP: .*$/m, { stream: 'err' });
  assert.ok(line.startsWith(`superd: E_DUMP: ${dumpFile(box)} is corrupt (not valid JSON`), line);
  assert.ok(line.includes(`the previous dump is ${bak}: \`cp ${bak} ${dumpFile(box)}\``), line);
  assert.deepEqual((await lsJson(box)).apps, []);
  assert.equal(box.daemonPid(), d.child.pid, 'the foreground daemon answered');
  assert.deepEqual(await d.stop('SIGTERM'), { code: 0, signal: null });
  assert.match(fs.readFileSync(path.join(box.home, 'daemon.log'), 'utf8'), /"msg":"resurrect failed"/);
  assert.equal(fs.readFileSync(dumpFile(box), 'utf8'), '{"superd": 1, "apps": [', 'the dump is left for the user to restore');
});

test('super daemon --foreground --resurrect boots without a dump, and starts the saved apps at boot', async (t) => {
  const box = await sandbox(t);
  // No dump yet: it boots with no apps and says nothing. The apps are then started and
  // saved on this daemon (box.start finds it running).
  const d1 = superProcess(box, t, ['daemon', '--foreground', '--resurrect']);
  await waitForDaemon(box);
  assert.deepEqual((await lsJson(box)).apps, []);
  assert.equal(d1.stderr, '');
  const { port } = await twoApps(box);
  await request(box, 'save');
  assert.deepEqual(await d1.stop('SIGINT'), { code: 0, signal: null });

  const d = superProcess(box, t, ['daemon', '--foreground', '--resurrect']);
  await waitForDaemon(box);
  // The socket is up before the saved apps are started (resurrect runs before the daemon
  // reports ready to systemd): wait until both are online.
  let apps = [];
  await eventually(async () => (apps = await appsOf(box)).length === 2 && apps.every((a) => a[1] === 'online'), { timeout: 20000, what: 'the saved apps online', last: () => JSON.stringify(apps) });
  assert.deepEqual(apps, [['web', 'online', 1], ['idle', 'online', 1]]);
  assert.match((await httpGet(port)).body, /app=web/);
  assert.deepEqual(await d.stop('SIGTERM'), { code: 0, signal: null });
});
