// Forks one cluster worker for an app slot. The user's script is the worker's real entry
// (process.argv[1]); superd's agent is preloaded with --require, never wrapped around it.
import cluster from 'node:cluster';
import { execTools } from './exec-prefix.js';

/**
 * Cluster settings are global but read at each fork, so setupPrimary(appSettings) and
 * fork() happen in this one synchronous function (STYLE.md 1.5). setupPrimary ignores
 * `execPath` (FEASIBILITY.md pitfall 8), so process.execPath is swapped around the fork
 * to exec the worker through setsid, and restored before anything else can run.
 * @returns {import('node:cluster').Worker}
 */
export function forkClusterWorker({ app, env, stdio, agentPath }) {
  const node = process.execPath;
  const { setsid } = execTools();
  const execArgv = ['--require', agentPath, ...app.node_args];
  cluster.setupPrimary({
    exec: app.script,
    args: app.args,
    cwd: app.cwd,
    execArgv: setsid ? [node, ...execArgv] : execArgv,
    stdio: ['ignore', stdio.out, stdio.err, 'ipc'],
    serialization: 'json',
  });
  if (setsid) process.execPath = setsid;
  try {
    return cluster.fork(env);
  } finally {
    process.execPath = node;
  }
}
