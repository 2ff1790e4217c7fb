// The agent-overhead bench's primary: a bare node:cluster primary forking WORKERS copies of
// APP, with superd's worker agent preloaded (AGENT=1, reporting every second as under
// superd) or not (AGENT=0). Same primary both ways, so the difference is the agent alone.
import cluster from 'node:cluster';
import { fileURLToPath } from 'node:url';

const n = Number(process.env.WORKERS ?? 1);
const agent = fileURLToPath(new URL('../lib/worker/agent.cjs', import.meta.url));
cluster.setupPrimary({ exec: process.env.APP, execArgv: process.env.AGENT === '1' ? ['--require', agent] : [] });
let listening = 0;
cluster.on('listening', () => ++listening === n && process.send?.('ready'));
cluster.on('message', () => {}); // the agent's reports arrive and are dropped, as cheaply as superd would take them
for (let i = 0; i < n; i++) cluster.fork({ SUPER_METRICS_INTERVAL: '1000', SUPER_SLOT: String(i), SUPER_APP_NAME: 'bench' });
const stop = () => {
  for (const w of Object.values(cluster.workers)) w.kill();
  setTimeout(() => process.exit(0), 2000).unref();
  if (process.connected) process.disconnect();
};
process.on('SIGTERM', stop).on('SIGINT', stop);
