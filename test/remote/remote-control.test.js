// Issue 7, part 1: the TCP control listener. Off by default; with control.listen, `super
// --host --token-file` runs ls, logs and monit against it; every refused client gets its
// HTTP status (401, 403, 429) before any websocket frame and a one-line coded error.
import test from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { execFileSync, execFile } from 'node:child_process';
import { sandbox, freePort, SUPER, lsJson } from '../helpers/harness.js';
import { eventually } from '../helpers/wait.js';
import { waitForLog } from '../helpers/metrics.js';
import { request, killDaemon, resurrect } from '../helpers/requests.js';
import { connect } from '../../lib/ipc/client.js';
import { upgrade, tcpListenPorts } from './helpers.js';

const idleApp = (name = 'web') => `  - name: ${name}\n    script: idle.js\n    ready_on: spawn\n    min_uptime: 200ms\n`;
const logApp = '  - name: web\n    script: log-writer.js\n    ready_on: ready\n    env: { LINES: "3", TAG: RMT }\n';

/** `super --host 127.0.0.1:port --token-file F ...args` from a SUPER_HOME with no daemon (only TCP can answer). */
function remoteCli(box, port, tokenFile, args, extra = []) {
  return box.cli(['--host', `127.0.0.1:${port}`, '--token-file', tokenFile, ...extra, ...args], { env: { SUPER_HOME: path.join(box.dir, 'client-home') } });
}

/** The daemon's token, copied to a file of the "remote" client (as an operator would). */
function copyToken(box, name = 'remote-token') {
  const file = path.join(box.dir, name);
  fs.copyFileSync(path.join(box.home, 'token'), file);
  return file;
}

const token = (box) => fs.readFileSync(path.join(box.home, 'token'), 'utf8').trim();

test('control.listen on loopback: ls, logs over --host; token 0600; 401 for a wrong or missing token; Origin; start is local-only; rotate', async (t) => {
  const box = await sandbox(t);
  const port = await freePort();
  box.fixture('log-writer.js');
  const eco = box.write('eco.yml', `control:\n  listen: 127.0.0.1:${port}\n  origins: [https://ops.example.com]\napps:\n${logApp}`);
  await box.start(eco);
  assert.deepEqual(tcpListenPorts(box.daemonPid()), [port], 'the daemon listens on control.listen only');

  const tokenFile = path.join(box.home, 'token');
  assert.equal(fs.statSync(tokenFile).mode & 0o777, 0o600, 'token file is 0600');
  assert.match(fs.readFileSync(tokenFile, 'utf8'), /^[0-9a-f]{64}\n$/, '32 random bytes as hex');
  const mine = copyToken(box);

  // Without --host, the client's own (empty) SUPER_HOME has no daemon: only TCP can answer.
  await assert.rejects(connect(path.join(box.dir, 'client-home')), /** @param {any} err */ (err) => err.code === 'E_NO_DAEMON');

  const ls = await remoteCli(box, port, mine, ['ls', '--json']);
  assert.equal(ls.code, 0, ls.stderr);
  assert.deepEqual(JSON.parse(ls.stdout).apps.map((a) => a.name), ['web']);

  const logs = await remoteCli(box, port, mine, ['logs', 'web', '--lines', '10']);
  assert.equal(logs.code, 0, logs.stderr);
  assert.match(logs.stdout, /RMT w0 0000002/, 'the app\'s log lines came over TCP');

  // The global flags after the command work as well as before it.
  const after = await box.cli(['ls', '--json', '--host', `127.0.0.1:${port}`, '--token-file', mine], { env: { SUPER_HOME: path.join(box.dir, 'client-home') } });
  assert.equal(after.code, 0, after.stderr);

  // start names a file of the client's machine: refused by the CLI, and by the daemon.
  const start = await remoteCli(box, port, mine, ['start', eco]);
  assert.equal(start.code, 2);
  assert.match(start.stderr, /^super: E_USAGE: super start .*--host/m);
  const client = await connect(box.home, { remote: { where: { host: '127.0.0.1', port, headers: { authorization: `Bearer ${token(box)}` } }, label: 'test' } });
  t.after(() => client.close());
  await assert.rejects(client.request('start', { file: eco }), /** @param {any} err */ (err) => err.code === 'E_LOCAL_ONLY');
  assert.equal((await client.request('ls')).apps.length, 1, 'the same connection still serves other ops');

  // A wrong token: 401 -> E_AUTH, exit 2; its value never reaches the daemon log.
  const wrongToken = 'ab'.repeat(32);
  const wrong = box.write('wrong-token', `${wrongToken}\n`);
  const bad = await remoteCli(box, port, wrong, ['ls']);
  assert.equal(bad.code, 2);
  assert.match(bad.stderr, /^super: E_AUTH: .*401/m);
  assert.equal(bad.stderr.trim().split('\n').length, 1, 'one line');
  // A token file that is missing or holds no token.
  const missing = await remoteCli(box, port, path.join(box.dir, 'nope'), ['ls']);
  assert.equal(missing.code, 2);
  assert.match(missing.stderr, /^super: E_AUTH: the token file .*nope does not exist/m);
  const garbage = await remoteCli(box, port, box.write('garbage', 'hello\n'), ['ls']);
  assert.equal(garbage.code, 2);
  assert.match(garbage.stderr, /^super: E_AUTH: .*does not hold a token/m);

  // Raw upgrade requests: the status comes before any websocket frame.
  const none = await upgrade(port);
  assert.equal(none.status, 401, 'no Authorization header');
  assert.equal(none.headers['www-authenticate'], 'Bearer');
  assert.equal((await upgrade(port, { token: token(box), origin: 'https://evil.example' })).status, 403, 'Origin not allowed');
  assert.equal((await upgrade(port, { token: token(box), origin: 'https://ops.example.com' })).status, 101, 'allowed Origin');
  assert.equal((await upgrade(port, { token: token(box) })).status, 101, 'no Origin (a CLI)');
  assert.equal((await upgrade(port, { token: token(box).toUpperCase() })).status, 401, 'the comparison is exact');
  const plain = await fetch(`http://127.0.0.1:${port}/`);
  assert.equal(plain.status, 426, 'plain HTTP is not served');

  // super token prints the token; --rotate replaces it: the old one is refused at once.
  const shown = await box.cli(['token']);
  assert.equal(shown.stdout.trim(), token(box));
  const rotated = await box.cli(['token', '--rotate']);
  assert.equal(rotated.code, 0, rotated.stderr);
  const fresh = rotated.stdout.trim();
  assert.match(fresh, /^[0-9a-f]{64}$/);
  assert.notEqual(fresh, fs.readFileSync(mine, 'utf8').trim());
  assert.equal(token(box), fresh);
  assert.equal(fs.statSync(tokenFile).mode & 0o777, 0o600, 'the rotated token file is 0600');
  assert.equal((await upgrade(port, { token: fs.readFileSync(mine, 'utf8').trim() })).status, 401, 'the old token is refused');
  // The renewed token works, here through a link: a client's own --token-file may be one (a
  // mounted secret); only the daemon's is never followed.
  const renewedFile = copyToken(box, 'renewed');
  fs.symlinkSync(renewedFile, path.join(box.dir, 'token-link'));
  const viaLink = await remoteCli(box, port, path.join(box.dir, 'token-link'), ['ls', '--json']);
  assert.equal(viaLink.code, 0, viaLink.stderr);

  // A token file replaced behind the daemon's back (not by --rotate) is never read: the
  // token in force stays the only one accepted, the planted one is refused.
  const planted = 'b'.repeat(64);
  fs.writeFileSync(`${tokenFile}.planted`, `${planted}\n`, { mode: 0o600 });
  fs.renameSync(`${tokenFile}.planted`, tokenFile);
  assert.equal((await upgrade(port, { token: planted })).status, 401, 'a planted token is refused');
  assert.equal((await upgrade(port, { token: fresh })).status, 101, 'the token read at start (or rotated) still works');
  assert.equal((await box.cli(['token'])).stdout.trim(), fresh, 'super token prints the token the daemon accepts');
  // A token that is a symbolic link is not read through it (here with no daemon: the file is read).
  const linkedHome = path.join(box.dir, 'linked-home');
  fs.mkdirSync(linkedHome, { mode: 0o700 });
  fs.symlinkSync(mine, path.join(linkedHome, 'token'));
  const linked = await box.cli(['token'], { env: { SUPER_HOME: linkedHome } });
  assert.equal(linked.code, 2, linked.stderr);
  assert.match(linked.stderr, /E_AUTH: .*token is a symbolic link, not read/);

  // The daemon's log writes are asynchronous: the last line may come after the reply.
  const log = await waitForLog(box, /Origin not in control\.origins/, 10000);
  assert.match(log, /"reason":"wrong token".*authentication failed/);
  assert.match(log, /"reason":"no bearer token"/);
  assert.match(log, /Origin not in control\.origins/);
  for (const secret of [wrongToken, fresh, fs.readFileSync(mine, 'utf8').trim()]) assert.ok(!log.includes(secret), 'no token in the daemon log');
});

// One daemon for both: the lockout of 127.0.0.2 is checked before 127.0.0.1 is locked out.
test('failed authentication is rate-limited per address: 429 after 5 failures, even for the right token; the CLI says E_RATE_LIMITED (exit 1)', async (t) => {
  const box = await sandbox(t);
  const port = await freePort();
  box.fixture('idle.js');
  const eco = box.write('eco.yml', `control: { listen: "127.0.0.1:${port}" }\napps:\n${idleApp()}`);
  await box.start(eco);
  const good = token(box);
  // The guesser connects from 127.0.0.2 (loopback too); the operator from 127.0.0.1.
  for (let i = 0; i < 5; i++) {
    assert.equal((await upgrade(port, { token: `guess${i}`, localAddress: '127.0.0.2' })).status, 401, `failure ${i + 1}`);
  }
  const locked = await upgrade(port, { token: good, localAddress: '127.0.0.2' });
  assert.equal(locked.status, 429, 'locked out: not even the right token is looked at');
  assert.ok(Number(locked.headers['retry-after']) > 0);
  assert.equal((await upgrade(port, { localAddress: '127.0.0.2' })).status, 429);
  assert.equal((await upgrade(port, { token: good })).status, 101, 'another address is not locked out');

  const cli = await box.cli(['--host', `127.0.0.1:${port}`, 'ls'], { env: {} });
  assert.equal(cli.code, 0, `--token-file defaults to $SUPER_HOME/token: ${cli.stderr}`);
  const log = await waitForLog(box, /locked out.*retry_after_ms|retry_after_ms.*locked out/, 10000);
  assert.equal(log.split('\n').filter((l) => l.includes('locked out') && l.includes('retry_after_ms')).length, 1, 'the lockout is logged once');

  // Now the CLI's own address, 127.0.0.1, is locked out.
  for (let i = 0; i < 5; i++) assert.equal((await upgrade(port, { token: 'cd'.repeat(32) })).status, 401, `failure ${i + 1} from 127.0.0.1`);
  const r = await remoteCli(box, port, path.join(box.home, 'token'), ['ls']);
  assert.equal(r.code, 1);
  assert.match(r.stderr, /^super: E_RATE_LIMITED: .*429/m);
  // The unix socket is not affected.
  assert.equal((await request(box, 'ls')).apps.length, 1);
});

test('a non-loopback control.listen without tls is a config error: exit 2, nothing started, running apps untouched', async (t) => {
  const box = await sandbox(t);
  const port = await freePort();
  box.fixture('idle.js');
  const first = box.write('first.yml', `apps:\n${idleApp()}`);
  await box.start(first);
  const before = (await lsJson(box)).apps[0].workers[0].pid;

  const open = box.write('open.yml', `control:\n  listen: 0.0.0.0:${port}\napps:\n${idleApp('other')}`);
  const r = await box.cli(['start', open]);
  assert.equal(r.code, 2);
  assert.match(r.stderr, /^super: E_CONFIG: /m);
  assert.match(r.stderr, /open\.yml:2:\d+: control\.listen: 0\.0\.0\.0:\d+ can be reached from other machines.*control\.tls/);
  const after = (await lsJson(box)).apps;
  assert.deepEqual(after.map((a) => a.name), ['web'], 'the other app was not started');
  assert.equal(after[0].workers[0].pid, before, 'the running app was not touched');
  assert.deepEqual(tcpListenPorts(box.daemonPid()), []);

  // super daemon --listen: the same rule, before anything starts.
  const fresh = path.join(box.dir, 'fresh-home');
  const d = await box.cli(['daemon', '--listen', `0.0.0.0:${port}`], { env: { SUPER_HOME: fresh }, timeout: 20000 });
  assert.equal(d.code, 2, d.stderr);
  assert.match(d.stderr, /^super: E_CONFIG: --listen 0\.0\.0\.0:\d+ can be reached from other machines/m);
  assert.equal(fs.existsSync(path.join(fresh, 'daemon.pid')), false, 'no daemon started');
});

test('no control.listen: the daemon opens no TCP port and creates no token; a later file opens the listener if none is open; other control settings need a restart (E_CONTROL_FIXED)', async (t) => {
  const box = await sandbox(t);
  const [port, other] = [await freePort(), await freePort()];
  box.fixture('idle.js');
  await box.start(box.write('plain.yml', `apps:\n${idleApp()}`));
  assert.deepEqual(tcpListenPorts(box.daemonPid()), [], 'the daemon listens on no TCP port');
  assert.equal(fs.existsSync(path.join(box.home, 'token')), false, 'no token file');

  const withControl = box.write('control.yml', `control: { listen: "127.0.0.1:${port}" }\napps:\n${idleApp()}`);
  await box.start(withControl);
  assert.deepEqual(tcpListenPorts(box.daemonPid()), [port], 'opened by the later start');
  assert.equal((await remoteCli(box, port, path.join(box.home, 'token'), ['ls'])).code, 0);

  const moved = box.write('moved.yml', `control: { listen: "127.0.0.1:${other}" }\napps:\n${idleApp('jobs')}`);
  const refused = await box.cli(['start', moved]);
  assert.equal(refused.code, 2);
  assert.match(refused.stderr, /^super: E_CONTROL_FIXED: .*moved\.yml asks for control listen 127\.0\.0\.1:\d+ .*`super upgrade --config /m);
  const origins = box.write('origins.yml', `control: { listen: "127.0.0.1:${port}", origins: [https://x.example] }\napps:\n${idleApp('jobs')}`);
  await assert.rejects(box.start(origins), /** @param {any} err */ (err) => err.code === 'E_CONTROL_FIXED', 'other origins are other settings');
  assert.deepEqual((await lsJson(box)).apps.map((a) => a.name), ['web'], 'nothing of the refused files started');
  assert.deepEqual(tcpListenPorts(box.daemonPid()), [port]);

  // The same settings again, or none: accepted.
  await box.start(withControl);
  await box.start(box.write('jobs.yml', `apps:\n${idleApp('jobs')}`));
});

const hasOpenssl = (() => {
  try {
    execFileSync('openssl', ['version'], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
})();

test('control.tls: wss on a non-loopback address; the CLI trusts the certificate with --tls-ca', { skip: hasOpenssl ? false : 'openssl is not installed' }, async (t) => {
  const box = await sandbox(t);
  const port = await freePort();
  box.fixture('idle.js');
  fs.mkdirSync(path.join(box.dir, 'tls'));
  // A self-signed certificate for 127.0.0.1 and localhost.
  await new Promise((resolve, reject) => execFile('openssl', ['req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes', '-days', '2', '-subj', '/CN=localhost',
    '-addext', 'subjectAltName=DNS:localhost,IP:127.0.0.1', '-keyout', path.join(box.dir, 'tls', 'key.pem'), '-out', path.join(box.dir, 'tls', 'cert.pem')],
  (err) => (err ? reject(err) : resolve())));
  const eco = box.write('eco.yml', `control:\n  listen: 0.0.0.0:${port}\n  tls: { cert: tls/cert.pem, key: tls/key.pem }\napps:\n${idleApp()}`);
  await box.start(eco);
  const ca = path.join(box.dir, 'tls', 'cert.pem');
  const tokenFile = path.join(box.home, 'token');

  const ok = await remoteCli(box, port, tokenFile, ['ls', '--json'], ['--tls-ca', ca]);
  assert.equal(ok.code, 0, ok.stderr);
  assert.deepEqual(JSON.parse(ok.stdout).apps.map((a) => a.name), ['web']);
  const viaEnv = await box.cli(['ls', '--json'], { env: { SUPER_HOME: path.join(box.dir, 'client-home'), SUPER_HOST: `127.0.0.1:${port}`, SUPER_TOKEN_FILE: tokenFile, SUPER_TLS: '1', NODE_EXTRA_CA_CERTS: ca } });
  assert.equal(viaEnv.code, 0, `SUPER_* variables and NODE_EXTRA_CA_CERTS: ${viaEnv.stderr}`);

  const untrusted = await remoteCli(box, port, tokenFile, ['ls'], ['--tls']);
  assert.equal(untrusted.code, 3);
  assert.match(untrusted.stderr, /^super: E_TLS: .*--tls-ca/m);
  const cleartext = await remoteCli(box, port, tokenFile, ['ls']);
  assert.equal(cleartext.code, 3, 'a client without TLS gets nothing');
  assert.match(cleartext.stderr, /^super: E_NO_DAEMON: .*--tls/m);
  // TLS does not replace the token.
  assert.equal((await upgrade(port, { ca: fs.readFileSync(ca) })).status, 401);
  assert.equal((await upgrade(port, { ca: fs.readFileSync(ca), token: token(box) })).status, 101);
});

const hasTmux = (() => {
  try {
    execFileSync('tmux', ['-V'], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
})();

test('super --host monit shows the remote daemon\'s apps (tmux)', { skip: hasTmux ? false : 'tmux is not installed' }, async (t) => {
  const box = await sandbox(t);
  const port = await freePort();
  box.fixture('idle.js');
  const eco = box.write('eco.yml', `control: { listen: "127.0.0.1:${port}" }\napps:\n${idleApp()}`);
  await box.start(eco);
  const tokenFile = copyToken(box);
  const sock = path.join(box.dir, 'tmux.sock');
  const tmux = (...args) => new Promise((resolve, reject) => execFile('tmux', ['-S', sock, ...args], (err, out) => (err ? reject(err) : resolve(out))));
  let serverPid = null;
  t.after(() => {
    try {
      if (serverPid) process.kill(serverPid, 'SIGTERM');
    } catch {}
  });
  await tmux('new-session', '-d', '-s', 'm', '-x', '120', '-y', '30',
    `SUPER_HOME=${path.join(box.dir, 'client-home')} NO_COLOR=1 ${process.execPath} ${SUPER} --host 127.0.0.1:${port} --token-file ${tokenFile} monit; echo MONIT-EXIT=$?; sleep 60`);
  serverPid = Number(await tmux('display-message', '-p', '#{pid}'));
  // A terminal sends no events to wait on: poll the screen, bounded.
  let screen = '';
  const screenShows = (re, what, timeout) => eventually(async () => re.test((screen = await tmux('capture-pane', '-p', '-t', 'm'))), { timeout, every: 100, what, last: () => screen });
  await screenShows(/^web\s+0\s+\d+\s+online|MONIT-EXIT/m, 'web#0 online (or monit ended)', 20000);
  assert.match(screen, /^web\s+0\s+\d+\s+online/m, `monit over --host shows web#0 online; screen:\n${screen}`);
  await tmux('send-keys', '-t', 'm', 'q');
  await screenShows(/MONIT-EXIT/, 'monit to quit', 10000);
  assert.match(screen, /MONIT-EXIT=0/);
});

test('save and resurrect keep the control listener', async (t) => {
  const box = await sandbox(t);
  const port = await freePort();
  box.fixture('idle.js');
  const eco = box.write('eco.yml', `control: { listen: "127.0.0.1:${port}", origins: [https://ops.example.com] }\napps:\n${idleApp()}`);
  await box.start(eco);
  await request(box, 'save');
  assert.deepEqual(JSON.parse(fs.readFileSync(path.join(box.home, 'dump.json'), 'utf8')).control, { listen: `127.0.0.1:${port}`, tls: null, origins: ['https://ops.example.com'] });
  await killDaemon(box);
  await resurrect(box);
  assert.deepEqual(tcpListenPorts(box.daemonPid()), [port]);
  assert.equal((await upgrade(port, { token: token(box) })).status, 101, 'the listener lets the token in');
  assert.equal((await upgrade(port, { token: token(box), origin: 'https://evil.example' })).status, 403, 'with its origins');
});
