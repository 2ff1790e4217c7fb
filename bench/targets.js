// Start/stop helpers for the three ways of running the hello server under test:
// raw node:cluster, superd and pm2. Each start*() resolves once all workers answer and
// returns { name, port, stop() }.
//
// Cleanup is belt and braces, because a leaked worker would skew every later run:
//  1. stop() asks nicely (SIGTERM to the raw primary, `super kill`, `pm2 kill`);
//  2. every process we spawn gets a marker env var (BENCH_MARK) that its descendants
//     inherit (daemons, cluster workers), so stop() then finds and SIGKILLs anything of
//     that target still alive by scanning /proc/*/environ, and reports it as a leak;
//  3. killEverythingSync() does the same scan for the whole run from process 'exit'.
import fs from 'node:fs';
import os from 'node:os';
import net from 'node:net';
import path from 'node:path';
import http from 'node:http';
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';

export const ROOT = fileURLToPath(new URL('..', import.meta.url));
export const HELLO = path.join(ROOT, 'examples/hello/server.js');
export const SUPER_BIN = path.join(ROOT, 'bin/super.js');
export const PM2_BIN = path.join(ROOT, 'node_modules/.bin/pm2');
const RAW_PRIMARY = path.join(ROOT, 'bench/raw-cluster.js');

const MARK = 'SUPERD_BENCH_MARK';
export const RUN_ID = `${process.pid}-${Date.now().toString(36)}`;
let seq = 0;
const live = new Set(); // targets started and not stopped yet (for SIGINT)
export const leaks = []; // processes found alive after a target's stop(): reported, then killed

/** Env for a child: ours, minus any SUPER_HOME/PM2_HOME of the caller, plus the marker. */
function childEnv(mark, extra) {
  const env = { ...process.env, ...extra, [MARK]: mark };
  for (const k of ['SUPER_HOME', 'PM2_HOME']) if (!(k in extra)) delete env[k];
  return env;
}

/**
 * Env for a child started outside start*() (bench/soak.js): marked like a target's, so
 * killEverythingSync() finds it and whatever it forks. Returns {env, mark}.
 */
export function markedEnv(kind, extra = {}) {
  const mark = `${RUN_ID}-${kind}-${++seq}`;
  return { env: childEnv(mark, extra), mark };
}

/** A free TCP port on 127.0.0.1 (bind 0, read it, close; the tiny race is acceptable here). */
export function freePort() {
  return new Promise((resolve, reject) => {
    const srv = net.createServer().once('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const { port } = /** @type {import('node:net').AddressInfo} */ (srv.address());
      srv.close(() => resolve(port));
    });
  });
}

/**
 * Runs a command to completion (async, so the driver's loop stays free). Rejects on failure.
 * @param {string} cmd  @param {string[]} args  @param {{env?: object, timeout?: number}} [o]
 */
export function run(cmd, args, { env, timeout = 60000 } = {}) {
  return new Promise((resolve, reject) => {
    const child = spawn(cmd, args, { env, cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'], timeout, killSignal: 'SIGKILL' });
    let out = '';
    child.stdout.on('data', (d) => { out += d; });
    child.stderr.on('data', (d) => { out += d; });
    child.on('error', reject);
    child.on('close', (code, signal) => {
      if (code === 0) resolve(out);
      else reject(new Error(`${path.basename(cmd)} ${args.join(' ')} failed (${signal ?? `exit ${code}`}):\n${out.trim().split('\n').slice(-15).join('\n')}`));
    });
  });
}

export const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

/**
 * Waits until `n` different worker pids have answered on fresh connections. Round-robin
 * hands new connections to every listening worker in turn, so this proves all n listen
 * (pm2's `start` returns when workers are forked, not when they listen).
 */
export async function waitForWorkers(port, n, timeout = Math.max(20000, n * 500)) {
  const pids = new Set();
  const deadline = Date.now() + timeout;
  while (pids.size < n) {
    if (Date.now() > deadline) throw new Error(`only ${pids.size}/${n} workers answered on port ${port} within ${timeout} ms`);
    const body = await new Promise((resolve) => {
      const req = http.get({ host: '127.0.0.1', port, path: '/', agent: false, timeout: 1000 }, (res) => {
        let b = '';
        res.on('data', (d) => { b += d; }).on('end', () => resolve(b));
      });
      req.on('error', () => resolve('')).on('timeout', () => req.destroy());
    });
    const pid = /pid (\d+)/.exec(body)?.[1];
    if (pid) pids.add(pid);
    else await sleep(50);
  }
}

/** Pids of live (non-zombie) processes whose environment has MARK=<value>, or MARK=<value>-* when prefix. */
function findMarked(value, { prefix = false } = {}) {
  const found = [];
  for (const ent of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(ent) || Number(ent) === process.pid) continue;
    let environ;
    try {
      environ = fs.readFileSync(`/proc/${ent}/environ`, 'latin1');
    } catch {
      continue; // gone, or not ours
    }
    const hit = environ.split('\0').find((kv) => kv.startsWith(`${MARK}=`))?.slice(MARK.length + 1);
    if (hit && (hit === value || (prefix && hit.startsWith(`${value}-`)))) found.push(Number(ent));
  }
  return found;
}

function killPids(pids) {
  for (const pid of pids) {
    try {
      process.kill(pid, 'SIGKILL');
    } catch { /* already gone */ }
  }
}

/** After a graceful stop: give stragglers `grace` ms, then SIGKILL and record them as leaks. */
async function reap(target, mark, grace = 3000) {
  const deadline = Date.now() + grace;
  let left = findMarked(mark);
  while (left.length && Date.now() < deadline) {
    await sleep(100);
    left = findMarked(mark);
  }
  if (left.length) {
    const cmds = left.map((pid) => { try { return `${pid} ${fs.readFileSync(`/proc/${pid}/cmdline`, 'utf8').replaceAll('\0', ' ').trim()}`; } catch { return `${pid}`; } });
    leaks.push({ target, processes: cmds });
    killPids(left);
  }
}

export { reap as reapMarked };

/** Bytes of resident memory (VmRSS) of every live process of `target` (found by marker). */
export function targetRss(target) {
  let kb = 0;
  for (const pid of findMarked(target.mark)) {
    try {
      kb += Number(/^VmRSS:\s+(\d+)/m.exec(fs.readFileSync(`/proc/${pid}/status`, 'latin1'))?.[1] ?? 0);
    } catch { /* exited */ }
  }
  return kb * 1024;
}

/** Wraps a target so stop() runs once, is bounded, and always ends with the /proc sweep. */
function makeTarget(name, port, mark, home, gracefulStop) {
  let stopping;
  const target = {
    name,
    port,
    mark,
    stop() {
      stopping ??= (async () => {
        try {
          await gracefulStop();
        } catch (err) {
          process.stderr.write(`warning: graceful stop of ${name} failed: ${err.message}\n`);
        } finally {
          await reap(name, mark);
          live.delete(target);
          if (home) fs.rmSync(home, { recursive: true, force: true });
        }
      })();
      return stopping;
    },
  };
  live.add(target);
  return target;
}

/** Starts a target, and if it never becomes ready, tears down whatever it started. */
async function guarded(target, ready) {
  try {
    await ready();
    return target;
  } catch (err) {
    await target.stop();
    throw err;
  }
}

/**
 * @param {object} o
 * @param {number} o.instances
 * @param {string} [o.script=HELLO]  the app the workers run
 * @param {string[]} [o.prefix=[]]  a command to exec the primary through, e.g. ['taskset', '-c', '0']
 * @param {boolean} [o.single=false]  run the app as one plain process, without a cluster primary
 * @param {boolean} [o.keepIpc=false]  keep the IPC channel to the primary (reload benches)
 * @param {string} [o.primary]  the primary's script (default bench/raw-cluster.js; bench/watched-primary.js)
 * @param {string} [o.name]
 * @param {Record<string, string>} [o.env={}]  more env for the primary and its workers (NODE_CLUSTER_SCHED_POLICY)
 */
export async function startRaw({ instances, keepIpc = false, script = HELLO, prefix = [], single = false, primary = RAW_PRIMARY, name = 'raw node:cluster', env = {} }) {
  const port = await freePort();
  const mark = `${RUN_ID}-raw-${++seq}`;
  const argv = [...prefix, process.execPath, single ? script : primary];
  // detached: own process group, so stop() can signal the primary and its workers at once.
  const child = spawn(argv[0], argv.slice(1), {
    cwd: ROOT,
    detached: true,
    stdio: ['ignore', process.stderr, 'inherit', 'ipc'], // the app's output (hello's listening line) off the results on stdout
    env: childEnv(mark, { ...env, PORT: String(port), WORKERS: String(instances), APP_SCRIPT: script }),
  });
  const exited = new Promise((resolve) => child.once('exit', resolve));
  const target = makeTarget(name, port, mark, null, async () => {
    if (child.connected) child.disconnect();
    try {
      process.kill(-child.pid, 'SIGTERM');
    } catch { /* gone */ }
    const timer = setTimeout(() => { try { process.kill(-child.pid, 'SIGKILL'); } catch { /* gone */ } }, 5000);
    await exited;
    clearTimeout(timer);
  });
  target.child = child;
  return guarded(target, async () => {
    if (single) return waitForWorkers(port, 1); // a plain server has no 'ready' to send
    await new Promise((resolve, reject) => {
      const ms = Math.max(15000, instances * 300); // 100 workers booting on 2 busy cores take longer than 15 s
      const timer = setTimeout(() => reject(new Error(`raw cluster: workers not listening within ${ms / 1000} s`)), ms);
      child.once('message', (m) => { if (m === 'ready') { clearTimeout(timer); resolve(); } });
      child.once('exit', (code) => { clearTimeout(timer); reject(new Error(`raw cluster exited early (code ${code})`)); });
    });
    if (!keepIpc && child.connected) child.disconnect(); // the IPC channel is only for 'ready' (and reloads)
    await waitForWorkers(port, instances);
  }).then((t) => Object.assign(t, { pid: child.pid }));
}

/**
 * @param {object} o
 * @param {number|{min: number, max: number}} o.instances  a count, or autoscale bounds (it waits for min workers)
 * @param {string} [o.script=HELLO]
 * @param {string[]} [o.top=[]]  extra top-level ecosystem lines (`scheduling: os`)
 * @param {string[]} [o.app=[]]  extra keys of the app, unindented (`cpu_affinity: spread`)
 * @param {string} [o.name]
 * @param {Record<string, string>} [o.env={}]  more env for the CLI and the daemon it starts
 * @param {boolean} [o.everyWorker=true]  also wait until every worker answers a fresh connection
 *   (false for `sticky: ip`, where one client address reaches one worker; `super start` returns
 *   once the workers listen all the same)
 */
export async function startSuperd({ instances, script = HELLO, top = [], app = [], name = 'superd', env: extraEnv = {}, everyWorker = true }) {
  const port = await freePort();
  const mark = `${RUN_ID}-superd-${++seq}`;
  const home = fs.mkdtempSync(path.join(os.tmpdir(), 'superd-bench-'));
  const eco = path.join(home, 'bench.yml');
  // JSON strings are valid YAML scalars: no quoting surprises with paths.
  fs.writeFileSync(eco, [
    ...top,
    'apps:',
    '  - name: bench-hello',
    `    script: ${JSON.stringify(script)}`,
    `    cwd: ${JSON.stringify(path.dirname(script))}`,
    `    instances: ${typeof instances === 'number' ? instances : `{ min: ${instances.min}, max: ${instances.max} }`}`,
    ...app.map((line) => `    ${line}`),
    '    env:',
    `      PORT: "${port}"`,
    '',
  ].join('\n'));
  const env = childEnv(mark, { ...extraEnv, SUPER_HOME: home });
  const target = makeTarget(name, port, mark, home, () => run(process.execPath, [SUPER_BIN, 'kill'], { env, timeout: 30000 }));
  target.env = env;
  return guarded(target, async () => {
    await run(process.execPath, [SUPER_BIN, 'start', eco], { env, timeout: 60000 }); // returns once workers listen
    await waitForWorkers(port, everyWorker ? (typeof instances === 'number' ? instances : instances.min) : 1);
  });
}

/**
 * @param {object} o
 * @param {number} o.instances
 * @param {string} [o.script=HELLO]
 * @param {string[]} [o.prefix=[]]  a command to exec the pm2 CLI through (its daemon inherits
 *   the CPU mask of the CLI that starts it, e.g. ['taskset', '-c', '0'])
 * @param {string} [o.name]
 * @param {Record<string, string>} [o.env={}]  more env for the pm2 CLI and its daemon
 * @param {boolean} [o.fork]  one fork-mode process (no -i): PM2's `reload` of it is a restart
 */
export async function startPm2({ instances, script = HELLO, prefix = [], name = 'pm2', env: extraEnv = {}, fork = false }) {
  const port = await freePort();
  const mark = `${RUN_ID}-pm2-${++seq}`;
  const home = fs.mkdtempSync(path.join(os.tmpdir(), 'pm2-bench-'));
  const env = childEnv(mark, { ...extraEnv, PM2_HOME: home, PORT: String(port) });
  const target = makeTarget(name, port, mark, home, () => run(PM2_BIN, ['kill'], { env, timeout: 30000 }));
  target.env = env;
  return guarded(target, async () => {
    // -i N = cluster mode. PORT reaches the app through the CLI's environment.
    const argv = [...prefix, PM2_BIN, 'start', script, ...(fork ? [] : ['-i', String(instances)]), '--name', 'bench-hello'];
    await run(argv[0], argv.slice(1), { env, timeout: 60000 });
    await waitForWorkers(port, fork ? 1 : instances);
  });
}

/**
 * CPU accounting for one load window, to tell a slow target from a busy machine: the
 * machine's busy and steal time (/proc/stat), the target's own processes (found by marker)
 * and this driver (autocannon). Whatever is busy beyond those is someone else's load.
 * Read before and after the window only, never during it.
 */
export function cpuSnapshot(target) {
  const stat = fs.readFileSync('/proc/stat', 'latin1').split('\n')[0].trim().split(/\s+/).slice(1).map(Number);
  const [user, nice, system, , , , , steal = 0] = stat; // irq/softirq left out: not any process's
  let targetTicks = 0;
  for (const pid of findMarked(target.mark)) {
    try {
      // fields after the ")" of comm: utime and stime are the 12th and 13th
      const f = fs.readFileSync(`/proc/${pid}/stat`, 'latin1').split(') ')[1].split(' ');
      targetTicks += Number(f[11]) + Number(f[12]);
    } catch { /* exited */ }
  }
  const self = process.cpuUsage();
  return { t: process.hrtime.bigint(), busy: user + nice + system, steal, targetTicks, selfUs: self.user + self.system };
}

/** Cores used over the window by: the target, the driver, everything else; plus steal. */
export function cpuDelta(a, b) {
  const secs = Number(b.t - a.t) / 1e9;
  const HZ = 100; // USER_HZ: /proc/stat and /proc/<pid>/stat count in 1/100 s on Linux
  const cores = (ticks) => ticks / HZ / secs;
  const target = cores(b.targetTicks - a.targetTicks);
  const driver = (b.selfUs - a.selfUs) / 1e6 / secs;
  const busy = cores(b.busy - a.busy);
  return { target, driver, other: Math.max(0, busy - target - driver), steal: cores(b.steal - a.steal) };
}

/** For SIGINT: stop every live target gracefully (bounded). */
export async function stopAll() {
  await Promise.allSettled([...live].map((t) => t.stop()));
}

/**
 * A bench's cleanup: on exit, SIGKILL what this run started and still lives; on each of
 * `signals`, stop every target gracefully first, then exit 130.
 */
export function stopAllOnExit(signals = ['SIGINT']) {
  process.on('exit', killEverythingSync);
  for (const sig of signals) {
    process.on(sig, async () => {
      await stopAll();
      process.exit(130);
    });
  }
}

/** For process 'exit' (synchronous): SIGKILL anything this run started that still lives. */
export function killEverythingSync() {
  try {
    killPids(findMarked(RUN_ID, { prefix: true }));
  } catch { /* best effort */ }
}
