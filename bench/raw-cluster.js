// Baseline for the throughput bench: the least a node:cluster primary can do. It forks
// WORKERS copies of the hello server (or of APP_SCRIPT) (round-robin, Node's default on Linux) and re-forks
// any that exit. No IPC, metrics or logs: whatever superd/pm2 cost shows up against this.
import cluster from 'node:cluster';
import { fileURLToPath } from 'node:url';

const n = Number(process.env.WORKERS ?? 2);
// WORKER_SESSION=/usr/bin/setsid: each worker is exec'd through setsid, in a session of its
// own, as superd starts them (bench/connections.js, raw-rr-setsid). Node 20 ignores
// setupPrimary's execPath, hence the swap around fork() (lib/master/process/launch-cluster.js).
const setsid = process.env.WORKER_SESSION;
const node = process.execPath;
cluster.setupPrimary({
  exec: process.env.APP_SCRIPT || fileURLToPath(new URL('../examples/hello/server.js', import.meta.url)),
  ...(setsid ? { execArgv: [node, ...process.execArgv] } : {}),
});
const forkOne = (env) => {
  if (setsid) process.execPath = setsid;
  try {
    return cluster.fork(env);
  } finally {
    process.execPath = node;
  }
};
// WORKER_NODE_OPTIONS: NODE_OPTIONS of the workers only (bench/connections.js, raw-rr-agent:
// superd's worker agent preloaded, without superd's daemon).
const workerEnv = (slot) => ({ NODE_APP_INSTANCE: String(slot), ...(process.env.WORKER_NODE_OPTIONS ? { NODE_OPTIONS: process.env.WORKER_NODE_OPTIONS } : {}) });
const fork = (slot) => forkOne(workerEnv(slot)).on('exit', () => stopping || fork(slot));
let stopping = false;
let listening = 0;
// The driver waits for this (over the IPC channel it gave us) before sending load.
cluster.on('listening', () => ++listening === n && process.send?.('ready'));
for (let i = 0; i < n; i++) fork(i);
const stop = () => {
  stopping = true;
  for (const w of Object.values(cluster.workers)) w.kill();
  setTimeout(() => process.exit(0), 3000).unref(); // the primary exits by itself once workers are gone
  if (process.connected) process.disconnect();
};
process.on('SIGTERM', stop).on('SIGINT', stop);

// The usual hand-written rolling reload (bench/reload.js): on SIGHUP, for each worker,
// fork a replacement, wait for it to listen, then old.disconnect(). It is what a
// primary can do alone (docs/measurements.md, draining); 'reloaded' goes to the driver over IPC.
process.on('SIGHUP', async () => {
  for (const [slot, old] of Object.values(cluster.workers).entries()) {
    old.removeAllListeners('exit');
    const fresh = forkOne(workerEnv(slot));
    fresh.on('exit', () => stopping || fork(slot));
    await new Promise((resolve) => fresh.once('listening', resolve));
    old.disconnect();
    setTimeout(() => old.isDead() || old.kill('SIGKILL'), 5000).unref();
  }
  process.send?.('reloaded');
});

// The raw floor of a reload (bench/reload.js, target raw-floor): on the driver's 'reload-all'
// message, fork a replacement for every worker at once, wait until all of them listen, then
// disconnect every old one and wait for their exits (SIGKILL after 5 s). No readiness
// protocol, probation or stagger: the least a reload of N workers costs on this host.
// Answers {reloaded: {listening, exited}}: ms after the message when the last replacement
// listened and when the last old worker exited.
process.on('message', async (m) => {
  if (m !== 'reload-all') return;
  const t0 = Date.now();
  const olds = Object.values(cluster.workers);
  const listening = olds.map((old, slot) => {
    old.removeAllListeners('exit');
    const fresh = forkOne(workerEnv(slot));
    fresh.on('exit', () => stopping || fork(slot));
    return new Promise((resolve) => fresh.once('listening', resolve));
  });
  await Promise.all(listening);
  const listened = Date.now() - t0;
  await Promise.all(olds.map((old) => new Promise((resolve) => {
    if (old.isDead()) return resolve();
    old.once('exit', resolve);
    old.disconnect();
    setTimeout(() => old.isDead() || old.kill('SIGKILL'), 5000).unref();
  })));
  process.send?.({ reloaded: { listening: listened, exited: Date.now() - t0 } });
});
