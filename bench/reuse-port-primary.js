// The kernel's own balancing, for bench/connections.js: WORKERS plain processes of
// APP_SCRIPT (no node:cluster), each listening on PORT itself with `reusePort: true`
// (bench/lib/reuse-port-listen.cjs). This process only forks them and waits: no
// connection passes through it. Needs Node 22.12+ (23.1+); started with startRaw({primary}).
import { fork } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const n = Number(process.env.WORKERS ?? 2);
const script = process.env.APP_SCRIPT || fileURLToPath(new URL('../examples/hello/server.js', import.meta.url));
const preload = fileURLToPath(new URL('./lib/reuse-port-listen.cjs', import.meta.url));
let stopping = false;
let listening = 0;
const children = new Set();
const start = (slot) => {
  const child = fork(script, [], { execArgv: ['--require', preload], env: { ...process.env, NODE_APP_INSTANCE: String(slot) } });
  children.add(child);
  child.on('message', (m) => m === 'listening' && ++listening === n && process.send?.('ready'));
  child.on('exit', () => {
    children.delete(child);
    if (!stopping) start(slot);
  });
};
for (let i = 0; i < n; i++) start(i);
const stop = () => {
  stopping = true;
  for (const c of children) c.kill();
  setTimeout(() => process.exit(0), 3000).unref();
  if (process.connected) process.disconnect();
};
process.on('SIGTERM', stop).on('SIGINT', stop);
