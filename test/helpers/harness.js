// Real daemons, real workers, real sockets: helpers for the lifecycle tests.
// Every test gets its own SUPER_HOME and free ports, and `cleanup` kills every process
// it started (daemon, workers, their process groups) even when the test failed.
import fs from 'node:fs';
import os from 'node:os';
import net from 'node:net';
import path from 'node:path';
import http from 'node:http';
import { spawn, execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { connect } from '../../lib/ipc/client.js';
import { ensureDaemon } from '../../lib/ctl/launch-daemon.js';
import { processAlive } from '../../lib/process-alive.js';
import { lsJson as renderLsJson } from '../../lib/ctl/render-ls.js';
import { eventually } from './wait.js';

export const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
export const SUPER = path.join(ROOT, 'bin', 'super.js');
export const FIXTURES = path.join(ROOT, 'test', 'fixtures');

// Ports for tests come from below the kernel's ephemeral range (32768+), so neither a
// client socket nor another process's bind(0) is handed one, and each is reserved with an
// exclusive file (owner pid inside) so that concurrent test processes, this suite's or
// another checkout's, never get the same one.
const PORT_DIR = path.join(os.tmpdir(), 'superd-test-ports');
const reserved = new Set();
process.on('exit', () => {
  for (const file of reserved) fs.rmSync(file, { force: true });
});

function reserve(port) {
  const file = path.join(PORT_DIR, String(port));
  for (let attempt = 0; attempt < 2; attempt++) {
    try {
      fs.writeFileSync(file, String(process.pid), { flag: 'wx' });
      reserved.add(file);
      return true;
    } catch (err) {
      if (err.code !== 'EEXIST') throw err;
      const owner = Number(fs.readFileSync(file, 'utf8'));
      if (owner && processAlive(owner)) return false;
      fs.rmSync(file, { force: true }); // its process is gone
    }
  }
  return false;
}

function bindable(port) {
  return new Promise((resolve) => {
    const s = net.createServer();
    s.unref();
    s.once('error', () => resolve(false));
    s.listen(port, '127.0.0.1', () => s.close(() => resolve(true)));
  });
}

/** A free TCP port on 127.0.0.1, reserved for this test process. */
export async function freePort() {
  fs.mkdirSync(PORT_DIR, { recursive: true });
  for (let i = 0; i < 500; i++) {
    const port = 20000 + Math.floor(Math.random() * 12000);
    if (reserve(port) && (await bindable(port))) return port;
  }
  throw new Error(`no free port found in 20000-31999 (reservations in ${PORT_DIR})`);
}

/** Runs `super ...args` against `home`; resolves {code, stdout, stderr}. */
export function superCli(home, args, { env = {}, timeout = 60000, cwd = ROOT } = {}) {
  return runProcess(process.execPath, [SUPER, ...args], { cwd, env: { ...process.env, SUPER_HOME: home, NO_COLOR: '1', ...env }, timeout });
}

/** Runs a command to its end (SIGKILL after `timeout` ms); resolves {code, signal, stdout, stderr}. */
export function runProcess(cmd, args, { cwd, env, timeout }) {
  return new Promise((resolve, reject) => {
    const child = spawn(cmd, args, { cwd, env, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => (stdout += d));
    child.stderr.on('data', (d) => (stderr += d));
    const timer = setTimeout(() => child.kill('SIGKILL'), timeout);
    child.on('error', reject);
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      resolve({ code, signal, stdout, stderr });
    });
  });
}

/**
 * A sandbox for one test: a temporary SUPER_HOME (short path: unix socket paths are
 * limited to 108 bytes) and a working directory for ecosystem files.
 */
export async function sandbox(t) {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'sd-'));
  const home = path.join(dir, 'home');
  const box = {
    dir,
    home,
    cli: (args, opts) => superCli(home, args, opts),
    /** Writes a file into the sandbox and returns its path. */
    write(name, text) {
      const p = path.join(dir, name);
      fs.mkdirSync(path.dirname(p), { recursive: true });
      fs.writeFileSync(p, text);
      return p;
    },
    /** Copies a fixture app (test/fixtures/apps/<name>) into the sandbox. */
    fixture(name) {
      const p = path.join(dir, name);
      fs.copyFileSync(path.join(FIXTURES, 'apps', name), p);
      fs.chmodSync(p, 0o755);
      return p;
    },
    client: () => connect(home),
    /**
     * `super start <file>` for a test's setup, in-process: the CLI's own launch of the daemon
     * (lib/ctl/launch-daemon.js) and its `start` request, with the environment a `box.cli`
     * would send, without a CLI's node start-up (~0.2-0.3 s of CPU). Resolves with the
     * daemon's reply; rejects when the file is refused or an app failed to start. Where
     * `super start` itself is under test (its output, exit status, refusals), use box.cli.
     * `env` adds to that environment, as variables set in the shell of `super start` would.
     */
    async start(file, { env = {} } = {}) {
      const client = await ensureDaemon(home, { warmConfigReader: true });
      try {
        const clientEnv = { ...process.env, SUPER_HOME: home, NO_COLOR: '1', ...env };
        const data = await client.request('start', { file: path.resolve(ROOT, file), clientEnv }, { timeout: 0 });
        if (data.failed?.length) throw new Error(`start ${file}: ${JSON.stringify(data.failed)}`);
        return data;
      } finally {
        client.close();
      }
    },
    daemonPid() {
      try {
        return Number(fs.readFileSync(path.join(home, 'daemon.pid'), 'utf8'));
      } catch {
        return null;
      }
    },
    /**
     * Kills the daemon and everything it started outright: nothing is asserted here, and a
     * graceful `super kill` would cost every test a CLI start-up and a drain. The daemons
     * are found by their environment, not by daemon.pid (two racing starts can leave none),
     * and stopped first (SIGSTOP), so they fork nothing between the listing of their
     * children and their death; each is killed with the process group it leads.
     */
    async cleanup() {
      const ours = processTable().filter((p) => p.pid !== process.pid && startedWith(p.pid, home)).map((p) => p.pid);
      for (const pid of ours) signal(pid, 'SIGSTOP');
      const all = new Set(ours);
      for (const p of processTable()) if (all.has(p.ppid)) all.add(p.pid);
      for (const pid of all) {
        signal(-pid, 'SIGKILL'); // the group it leads, if it leads one
        signal(pid, 'SIGKILL');
      }
      await waitGone([...all]);
      fs.rmSync(dir, { recursive: true, force: true });
    },
  };
  t.after(() => box.cleanup());
  return box;
}

/**
 * A sandbox whose SUPER_HOME is a tmpfs of `size` (e.g. '64k', '1m'; mounting needs root),
 * unmounted after the test. The unmount is registered before the sandbox's cleanup: a lazy
 * unmount lets that cleanup remove the directory.
 */
export async function tmpfsSandbox(t, size) {
  let home = null;
  t.after(() => {
    if (!home) return;
    // Never thrown: a hook that throws skips the hooks after it, and the sandbox's cleanup
    // (which kills the daemon) is one of them.
    try {
      execFileSync('umount', ['-l', home]);
    } catch (err) {
      process.stderr.write(`tmpfsSandbox: umount ${home}: ${err.message}\n`);
    }
  });
  const box = await sandbox(t);
  fs.mkdirSync(box.home);
  execFileSync('mount', ['-t', 'tmpfs', '-o', `size=${size},mode=0700`, 'tmpfs', box.home]);
  home = box.home;
  return box;
}

export const alive = processAlive;

/** Sends `sig` to `pid` (or a process group, negative) if it is still there. */
export function signal(pid, sig) {
  try {
    process.kill(pid, sig);
  } catch {}
}

/** Whether `pid` is a live process started with SUPER_HOME=home. */
function startedWith(pid, home) {
  try {
    return fs.readFileSync(`/proc/${pid}/environ`, 'utf8').split('\0').includes(`SUPER_HOME=${home}`);
  } catch {
    return false; // gone
  }
}

/** Every live process as {pid, ppid, pgid} (from /proc; zombies left out). */
function processTable() {
  const out = [];
  for (const name of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    try {
      const stat = fs.readFileSync(`/proc/${name}/stat`, 'utf8');
      const [state, ppid, pgid] = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      if (state !== 'Z') out.push({ pid: Number(name), ppid: Number(ppid), pgid: Number(pgid) });
    } catch {}
  }
  return out;
}

/** Pids whose parent is `ppid`. */
export const workerPids = async (ppid) => processTable().filter((p) => p.ppid === ppid).map((p) => p.pid);

/** Pids of every process in process group `pgid`. */
export const groupPids = (pgid) => processTable().filter((p) => p.pgid === pgid).map((p) => p.pid);

/**
 * Resolves once none of `pids` is alive, or after `timeout` ms (the caller asserts).
 * Polls: the death of a process that is not our child sends us no event.
 */
export async function waitGone(pids, timeout = 30000) {
  await eventually(() => !pids.some(alive), { timeout, every: 25 }).catch(() => {});
  return pids.filter(alive);
}

/** GET http://127.0.0.1:port/path with a fresh connection; resolves {status, body}. */
export function httpGet(port, p = '/', { timeout = 15000 } = {}) {
  return new Promise((resolve, reject) => {
    const req = http.get({ host: '127.0.0.1', port, path: p, agent: false, timeout }, (res) => {
      let body = '';
      res.on('data', (d) => (body += d));
      res.on('end', () => resolve({ status: res.statusCode, body }));
    });
    req.on('timeout', () => req.destroy(new Error('timeout')));
    req.on('error', reject);
  });
}

/**
 * Subscribes to events (worker state by default) and returns `waitFor(predicate, timeout)`, which resolves
 * with the first event (seen from subscription on) that matches. Event-driven: no sleeps.
 */
export async function watchEvents(box, t, topics = ['worker']) {
  const client = await box.client();
  const seen = [];
  const waiters = new Set();
  client.onEvent((e) => {
    if (!topics.includes(e.event)) return;
    seen.push(e.data);
    for (const w of waiters) if (w.pred(e.data)) w.resolve(e.data);
  });
  await client.request('subscribe', { topics });
  t.after(() => client.close());
  return {
    seen,
    client,
    waitFor(pred, timeout = 30000, what = 'event') {
      const hit = seen.find(pred);
      if (hit) return Promise.resolve(hit);
      return new Promise((resolve, reject) => {
        const w = {
          pred,
          resolve: (e) => {
            clearTimeout(timer);
            waiters.delete(w);
            resolve(e);
          },
        };
        const timer = setTimeout(() => {
          waiters.delete(w);
          reject(new Error(`timed out after ${timeout} ms waiting for ${what}; saw: ${JSON.stringify(seen.slice(-10))}`));
        }, timeout);
        waiters.add(w);
      });
    },
  };
}

/**
 * What `super describe <app> --json` prints (the daemon's `describe` reply, unshaped), asked
 * in-process like lsJson. The CLI's own describe --json is checked in test/lifecycle/basic.test.js.
 */
export async function describeJson(box, app) {
  const client = await connect(box.home);
  try {
    return JSON.parse(JSON.stringify((await client.request('describe', { app })).app));
  } finally {
    client.close();
  }
}

/**
 * What `super ls --json` prints, asked in-process over the control socket: the same request
 * and the same shaping (lib/ctl/render-ls.js, then a JSON round trip) without a CLI's node
 * start-up (~0.1-0.2 s of CPU), which most callers pay only to set up or poll. The CLI's own
 * `ls --json` is checked in test/lifecycle/basic.test.js.
 */
export async function lsJson(box) {
  const client = await connect(box.home);
  try {
    return JSON.parse(JSON.stringify(renderLsJson(await client.request('ls'))));
  } finally {
    client.close();
  }
}
