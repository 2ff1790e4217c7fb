// The floor under what watching N workers costs a primary (bench/dashboard-cost.js): a
// bare node:cluster primary doing only the work the daemon cannot skip while someone
// watches. Its workers run superd's agent, told to report once a second (WATCH), and it
// samples every worker once a second with the daemon's sampler, given each report's CPU
// time and RSS as the daemon gives them (so /proc is read as the daemon reads it: the
// children list, the whole tree every 10th sample). No registry, health rules, status
// view or control channel: whatever the daemon costs above this is its own.
// Started by bench/targets.js startRaw({primary}); WORKERS and APP_SCRIPT as raw-cluster.js.
import cluster from 'node:cluster';
import { fileURLToPath } from 'node:url';
import { ProcessSampler } from '../lib/master/health/process-sampler.js';
import { envelope, TO_AGENT, FROM_AGENT } from '../lib/ipc/agent-protocol.js';

const AGENT = fileURLToPath(new URL('../lib/worker/agent.cjs', import.meta.url));
const n = Number(process.env.WORKERS ?? 2);
cluster.setupPrimary({ exec: process.env.APP_SCRIPT || fileURLToPath(new URL('../examples/hello/server.js', import.meta.url)), execArgv: ['--require', AGENT] });
let listening = 0;
cluster.on('listening', (worker) => {
  worker.send(envelope(TO_AGENT.WATCH));
  if (++listening === n) process.send?.('ready');
});
const figures = new Map(); // pid -> the last report's {user, system, rss, at}
cluster.on('message', (worker, m) => {
  if (m?.cmd === FROM_AGENT.METRICS) figures.set(worker.process.pid, { ...m.data.cpu_us, rss: m.data.rss, at: Date.now() });
});
for (let i = 0; i < n; i++) cluster.fork({ NODE_APP_INSTANCE: String(i), SUPER_SLOT: String(i), SUPER_METRICS_INTERVAL: '1000' });
const sampler = new ProcessSampler();
const agentOf = (pid) => figures.get(pid) ?? null;
const timer = setInterval(() => sampler.sample(Object.values(cluster.workers).map((w) => w.process.pid), undefined, agentOf), 1000);
process.on('SIGTERM', () => {
  clearInterval(timer);
  for (const w of Object.values(cluster.workers)) w.kill();
  setTimeout(() => process.exit(0), 3000).unref();
  if (process.connected) process.disconnect();
});
