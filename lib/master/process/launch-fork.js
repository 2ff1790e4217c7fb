// Starts one fork-mode worker: any executable (interpreter: none), a script run by
// another interpreter (python3, bun: `<interpreter> <node_args> <script> <args>`), or a
// Node script with the agent and an IPC channel (interpreter: node), one child per instance.
import { spawn } from 'node:child_process';
import { execPrefix } from './exec-prefix.js';
import { sharesListen } from './cluster-internals/index.js';

/**
 * @param {{app: import('../../config/index.js').AppConfig, env: object, stdio: object, agentPath: string, cpus?: string|null}} o
 * @returns {import('node:child_process').ChildProcess}
 */
export function spawnForkWorker({ app, env, stdio, agentPath, cpus = null }) {
  const node = app.interpreter === 'node';
  const argv = node ? [app.node_path ?? process.execPath, '--require', agentPath, ...app.node_args, app.script, ...app.args]
    : app.interpreter === 'none' ? [app.script, ...app.args]
      : [app.interpreter, ...app.node_args, app.script, ...app.args];
  // its TCP ports are sockets the daemon holds (shared-listen.js): a reload refuses no connection
  const ownEnv = sharesListen(app) ? { ...env, SUPER_SHARED_LISTEN: '1' } : env;
  // the child leads a process group of its own, like cluster workers (exec-prefix.js); with
  // neither perl nor setsid found, detached: a session of its own
  const { prefix, env: spawnEnv, grouped } = execPrefix({ group: true, pdeathsig: true, cpus, env: ownEnv });
  const [file, ...args] = [...prefix, ...argv];
  return spawn(file, args, {
    cwd: app.cwd,
    env: spawnEnv,
    detached: !grouped,
    stdio: ['ignore', stdio.out, stdio.err, ...(node ? ['ipc'] : [])],
    serialization: 'json',
    // uid/gid: only set when the config says (the daemon then runs as root: lib/config/run-as.js)
    ...(app.uid != null && { uid: app.uid }),
    ...(app.gid != null && { gid: app.gid }),
  });
}
