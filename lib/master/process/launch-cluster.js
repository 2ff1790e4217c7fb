// Forks one cluster worker for an app slot. The user's script is the worker's real entry
// (process.argv[1]); superd's agent is preloaded with --require, never wrapped around it.
import cluster from 'node:cluster';
import { execPrefix } from './exec-prefix.js';
import { installHandoffGuard } from './handoff-guard.js';
import { guardListens } from './listen-guard.js';
import { watchPortOwners } from './port-owners.js';

/**
 * Cluster settings are global but read at each fork, so setupPrimary(appSettings) and
 * fork() happen in this one synchronous function: no await in between, where another
 * slot's fork could set its own. setupPrimary silently ignores `execPath` in Node 20
 * (docs/measurements.md, CPU pinning), so process.execPath is swapped around the fork to
 * exec the worker through setsid and setpriv --pdeathsig (and taskset -c when pinned), or another Node
 * (app.node_path), and restored before anything else can run.
 * @param {{app: object, env: object, stdio: object, agentPath: string, cpus?: string|null}} o
 * @returns {import('node:cluster').Worker}
 */
export function forkClusterWorker({ app, env, stdio, agentPath, cpus = null }) {
  installHandoffGuard(); // before the first fork; a no-op after
  const daemonNode = process.execPath;
  const node = app.node_path ?? daemonNode; // `interpreter: /path/to/node`: another Node
  const prefix = execPrefix({ session: true, pdeathsig: true, cpus });
  const execArgv = ['--require', agentPath, ...app.node_args];
  cluster.setupPrimary({
    exec: app.script,
    args: app.args,
    cwd: app.cwd,
    execArgv: prefix.length ? [...prefix.slice(1), node, ...execArgv] : execArgv,
    stdio: ['ignore', stdio.out, stdio.err, 'ipc'],
    serialization: 'json',
    // Settings persist across setupPrimary calls: always set both, so one app's user never
    // leaks into the next app's fork.
    uid: app.uid ?? undefined,
    gid: app.gid ?? undefined,
  });
  if (prefix.length) process.execPath = prefix[0];
  else process.execPath = node;
  try {
    const worker = cluster.fork(env);
    // Each prepends its check of the worker's listen queries: the last one added runs first.
    watchPortOwners(worker, app); // an address another app's workers hold is refused
    guardListens(worker, app); // first: a worker run as another user listens only where that user may
    return worker;
  } finally {
    process.execPath = daemonNode;
  }
}
