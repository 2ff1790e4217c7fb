// Baseline for the throughput bench: the least a node:cluster primary can do. It forks
// WORKERS copies of the hello server (or of APP_SCRIPT) (round-robin, Node's default on Linux) and re-forks
// any that exit. No IPC, metrics or logs: whatever superd/pm2 cost shows up against this.
import cluster from 'node:cluster';
import { fileURLToPath } from 'node:url';

const n = Number(process.env.WORKERS ?? 2);
cluster.setupPrimary({ exec: process.env.APP_SCRIPT || fileURLToPath(new URL('../examples/hello/server.js', import.meta.url)) });
const fork = (slot) => cluster.fork({ NODE_APP_INSTANCE: String(slot) }).on('exit', () => stopping || fork(slot));
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
    const fresh = cluster.fork({ NODE_APP_INSTANCE: String(slot) });
    fresh.on('exit', () => stopping || fork(slot));
    await new Promise((resolve) => fresh.once('listening', resolve));
    old.disconnect();
    setTimeout(() => old.isDead() || old.kill('SIGKILL'), 5000).unref();
  }
  process.send?.('reloaded');
});
