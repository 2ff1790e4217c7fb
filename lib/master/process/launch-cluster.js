// Forks one cluster worker for an app slot. The user's script is the worker's real entry
// (process.argv[1]); superd's agent is preloaded with --require, never wrapped around it.
import { execPrefix } from './exec-prefix.js';
import { orphanReaperRunning } from './orphan-reaper.js';
import { forkWorker } from './cluster-internals/index.js';
import { listenGuard } from './listen-guard.js';
import { portOwnerWatch } from './port-owners.js';
import { takePath, releasePath, servedInherited } from './connection-path.js';

/**
 * What the daemon needs to refuse the app's new connections itself while its round-robin
 * handoff queue stands (cluster-internals/handoff-shedding.js): an app with
 * overload.max_queue_wait and no sticky: (the sticky router chooses its workers itself).
 * @param {import('../../config/index.js').AppConfig} app
 */
function queueShedding(app) {
  const o = app.overload;
  if (!o?.max_queue_wait || app.sticky) return null;
  return { maxQueueWait: o.max_queue_wait, status: o.status, retryAfter: o.retry_after > 0 ? Math.ceil(o.retry_after / 1000) : 0 };
}

/**
 * The worker takes its app's connection path (connection-path.js: WorkerProcess releases it
 * at its exit). The worker is exec'd through perl's setpgrp (setsid without perl: exec-prefix.js), and
 * taskset -c when pinned, or another Node (app.node_path): the seam (cluster-internals/)
 * swaps process.execPath around the fork, as setupPrimary ignores `execPath`
 * (docs/measurements.md, CPU pinning). No parent-death signal, unlike a fork-mode child,
 * while the orphan reaper runs: a cluster worker outlives a daemon that dies until it has
 * served what it holds (lib/worker/drain.cjs outliveDaemon), and the reaper ends one stuck
 * in a loop (orphan-reaper.js).
 * @param {{app: import('../../config/index.js').AppConfig, env: object, stdio: object, agentPath: string, cpus?: string|null}} o
 * @returns {import('node:cluster').Worker}
 */
export function forkClusterWorker({ app, env: appEnv, stdio, agentPath, cpus = null }) {
  const node = app.node_path ?? process.execPath; // `interpreter: /path/to/node`: another Node
  // cluster.fork(env) starts the worker with the daemon's environment under `env`
  const { prefix, env } = execPrefix({ group: true, pdeathsig: !orphanReaperRunning(), cpus, env: { ...process.env, ...appEnv } });
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
  const path = takePath(app).path;
  try {
    return forkWorker({
      settings, execPath: prefix.length ? prefix[0] : node, env, watches, sticky,
      reusePort: path === 'reuseport',
      slot: { app: app.name, slot: Number(env.SUPER_SLOT) },
      servedInherited: (kind) => servedInherited(app.name, kind),
      queueShedding: path === 'round-robin' ? queueShedding(app) : null,
      acceptTimes: Boolean(app.overload?.max_queue_wait),
    });
  } catch (err) {
    releasePath(app.name);
    throw err;
  }
}
