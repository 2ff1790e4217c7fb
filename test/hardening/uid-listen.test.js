// Issue 27, critical 1: in cluster mode the daemon (root) performs each worker's listen(),
// so a worker run as another user (`uid:`) must get only what that user could bind by
// itself: no socket in a directory it may not write (nothing created there), no port below
// 1024 unless the app has allow_privileged_ports, no descriptor of the daemon; a socket in
// its own directory works and is the user's. Every scheduling: round-robin (the daemon
// listens), `os` (the daemon creates the handle and shares it) and, on a Node that has it,
// `reuseport` (the daemon binds a socket per worker).
// Needs root (useradd, uid:); skipped with the reason otherwise.
import test from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { sandbox } from '../helpers/harness.js';
import { testUser } from '../helpers/test-user.js';
import { unprivilegedPortStart } from '../../lib/master/process/listen-permission.js';
import { MAX_SERVERS_PER_WORKER } from '../../lib/master/process/listen-guard.js';
import { eventually } from '../helpers/wait.js';
import { reusePortSupport } from '../../lib/connection-path-choice.js';
import { fdTargets } from '../helpers/proc-fds.js';

const notRoot = process.getuid?.() !== 0 && 'needs root: creates a user and runs an app as it';

/** A port below 1024 that nothing listens on (bound and released here, as root). */
async function freeLowPort(from) {
  for (let port = from; port < from + 100; port++) {
    const ok = await new Promise((resolve) => {
      const s = net.createServer().once('error', () => resolve(false)).listen(port, '127.0.0.1', () => s.close(() => resolve(true)));
    });
    if (ok) return port;
  }
  throw new Error(`no free port in ${from}..${from + 99}`);
}

/** Waits (bounded) until `file` has a line matching `re`; returns that line. */
function lineOf(file, re, timeout = 20000) {
  const text = () => (fs.existsSync(file) ? fs.readFileSync(file, 'utf8') : '');
  return eventually(() => text().split('\n').find((l) => re.test(l)), { timeout, what: `a line of ${file} matching ${re}`, last: text });
}

const connectTo = (sock) => new Promise((resolve, reject) => {
  let text = '';
  net.connect(sock).on('data', (d) => (text += d)).on('end', () => resolve(text)).on('error', reject);
});

test('a uid app listens only where its user may', { skip: notRoot, timeout: 120000 }, async (t) => {
  const { name: user, uid } = testUser(t, 'sdl');
  const lowStart = unprivilegedPortStart();

  for (const scheduling of ['round-robin', 'os', ...(reusePortSupport().ok ? ['reuseport'] : [])]) {
    await t.test(`scheduling: ${scheduling}`, async (t) => {
      const box = await sandbox(t);
      fs.chmodSync(box.dir, 0o755); // the user may enter (its script is here)
      box.fixture('listen-probe.cjs');
      const mkdir = (name, mode, owner = 0) => {
        const dir = path.join(box.dir, name);
        fs.mkdirSync(dir, { mode });
        fs.chmodSync(dir, mode);
        fs.chownSync(dir, owner, owner);
        return dir;
      };
      const rootOnly = mkdir('root-only', 0o700);
      const userDir = mkdir('user-dir', 0o700, uid);
      const logs = mkdir('logs', 0o755);
      const [low, granted] = [await freeLowPort(900), await freeLowPort(950)];
      const apps = {
        rootdir: { LISTEN: path.join(rootOnly, 'x.sock') },
        own: { LISTEN: path.join(userDir, 'x.sock') },
        lowport: { LISTEN: `port:${low}` },
        granted: { LISTEN: `port:${granted}`, extra: '    allow_privileged_ports: true\n' },
        fd: { LISTEN: 'fd:999' },
        forged: { LISTEN: `forged:${path.join(rootOnly, 'forged.sock')}` },
        ...(scheduling === 'round-robin' && { many: { LISTEN: 'forged-many:300' } }),
      };
      const yaml = `scheduling: ${scheduling}\napps:\n${Object.entries(apps).map(([name, a]) => `  - name: ${name}\n    script: listen-probe.cjs\n    uid: ${user}\n    ready_on: spawn\n`
        + `    out_file: ${logs}/${name}.out\n    error_file: ${logs}/${name}.err\n    env: { LISTEN: "${a.LISTEN}" }\n${a.extra ?? ''}`).join('')}`;
      // Log files a uid app's user may write by itself (issue 36): created as its own.
      for (const name of Object.keys(apps)) {
        for (const ext of ['out', 'err']) {
          const f = path.join(logs, `${name}.${ext}`);
          fs.writeFileSync(f, '');
          fs.chownSync(f, uid, uid);
        }
      }
      const r = await box.cli(['start', box.write('eco.yml', yaml)]);
      assert.equal(r.code, 0, r.stderr);
      const out = (name) => path.join(logs, `${name}.out`);

      // (a) a directory only root may write in: refused, nothing created, the reason on stderr
      assert.match(await lineOf(out('rootdir'), /^LISTEN/), /^LISTEN_ERROR EACCES /);
      // ... also when the app forges the query (a path dressed as a TCP listen), bypassing net
      assert.match(await lineOf(out('forged'), /^FORGED_REPLY/), /^FORGED_REPLY -13$/);
      assert.deepEqual(fs.readdirSync(rootOnly), [], 'no socket created in the root-only directory');
      assert.match(await lineOf(path.join(logs, 'rootdir.err'), /superd: listen/), /superd: listen on .*root-only\/x\.sock refused: uid \d+ may not create files in .*root-only/);

      // (c) its own directory: works, and the socket is the user's
      assert.match(await lineOf(out('own'), /^LISTEN/), /^LISTENING /);
      const sock = path.join(userDir, 'x.sock');
      assert.equal(fs.lstatSync(sock).uid, uid, 'the socket belongs to the app\'s user');
      assert.equal(await connectTo(sock), 'hi\n');

      // (b) a privileged port: refused without allow_privileged_ports, served with it
      if (low < lowStart) {
        assert.match(await lineOf(out('lowport'), /^LISTEN/), /^LISTEN_ERROR EACCES /);
        assert.match(await lineOf(path.join(logs, 'lowport.err'), /superd: listen/), /port \d+ is privileged .*allow_privileged_ports: true/);
      } else t.diagnostic(`ports from ${lowStart} are everyone's here: the refusal is not checked`);
      assert.match(await lineOf(out('granted'), /^LISTEN/), /^LISTENING /);

      // a descriptor number is the daemon's, never the app's
      assert.match(await lineOf(out('fd'), /^LISTEN/), /^LISTEN_ERROR EACCES /);
      // servers held for one worker are bounded (MAX_SERVERS_PER_WORKER)
      if (apps.many) assert.match(await lineOf(out('many'), /^FORGED_MANY/), new RegExp(`^FORGED_MANY ${300 - MAX_SERVERS_PER_WORKER}$`));

      // An app that dies of the refusal: super start shows the daemon's reason, not only EACCES.
      if (scheduling === 'round-robin' && low < lowStart) {
        box.fixture('http-server.js');
        const dies = box.write('dies.yml', `apps:\n  - name: dies\n    script: http-server.js\n    uid: ${user}\n    max_restarts: 0\n    env: { PORT: ${low} }\n`);
        const failed = await box.cli(['start', dies]);
        assert.notEqual(failed.code, 0, failed.stdout + failed.stderr);
        assert.match(failed.stderr, /dies#0 .*\n.*superd: listen on port \d+ refused: .*allow_privileged_ports: true/);
      }

      // Stopped: the socket is removed and the daemon holds no descriptor of the directory.
      assert.equal((await box.cli(['stop', 'own'])).code, 0);
      assert.equal(fs.existsSync(sock), false, 'the socket is gone with its server');
      const pid = box.daemonPid();
      const held = fdTargets(pid).map((d) => d.target);
      assert.ok(!held.includes(userDir), 'the directory descriptor is closed');
    });
  }
});
