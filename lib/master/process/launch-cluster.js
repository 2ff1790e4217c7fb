// Forks one cluster worker for an app slot. The user's script is the worker's real entry
// (process.argv[1]); superd's agent is preloaded with --require, never wrapped around it.
import { execPrefix } from './exec-prefix.js';
import { forkWorker } from './cluster-internals/index.js';
import { listenGuard } from './listen-guard.js';
import { portOwnerWatch } from './port-owners.js';

/**
 * The worker is exec'd through setsid and setpriv --pdeathsig (and taskset -c when pinned),
 * or another Node (app.node_path): the seam (cluster-internals/) swaps process.execPath
 * around the fork, as setupPrimary ignores `execPath` (docs/measurements.md, CPU pinning).
 * @param {{app: import('../../config/index.js').AppConfig, env: object, stdio: object, agentPath: string, cpus?: string|null}} o
 * @returns {import('node:cluster').Worker}
 */
export function forkClusterWorker({ app, env, stdio, agentPath, cpus = null }) {
  const node = app.node_path ?? process.execPath; // `interpreter: /path/to/node`: another Node
  const prefix = execPrefix({ session: true, pdeathsig: true, cpus });
  const execArgv = ['--require', agentPath, ...app.node_args];
  /** @type {import('node:cluster').ClusterSettings} */
  const settings = {
    exec: app.script,
    args: app.args,
    cwd: app.cwd,
    execArgv: prefix.length ? [...prefix.slice(1), node, ...execArgv] : execArgv,
    stdio: ['ignore', stdio.out, stdio.err, 'ipc'],
    serialization: /** @type {const} */ ('json'),
    // Settings persist across setupPrimary calls: always set both, so one app's user never
    // leaks into the next app's fork.
    uid: app.uid ?? undefined,
    gid: app.gid ?? undefined,
  };
  const watches = [
    listenGuard(app), // first: a worker run as another user listens only where that user may
    portOwnerWatch(app), // then: an address another app's workers hold is refused
  ].filter((w) => w !== null);
  const sticky = app.sticky ? { app: app.name, slot: Number(env.SUPER_SLOT), ...app.sticky } : null;
  return forkWorker({ settings, execPath: prefix.length ? prefix[0] : node, env, watches, sticky });
}
