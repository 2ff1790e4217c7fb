// When a new worker counts as ready, and whether it then stays up: the one definition
// used by first starts, crash restarts and rolling reloads.
import { describeExit } from '../process/index.js';

/**
 * Resolves {ready: true, ms} when `proc` becomes ready by config.ready_on, or
 * {ready: false, ms} when listen_timeout passes first (not for ready_on: spawn, which
 * is "alive for min_uptime"); rejects (err.exit set) if it exits before either.
 * @param {import('../process/worker-process.js').WorkerProcess} proc
 */
export function waitReady(proc, config) {
  const t0 = Date.now();
  return new Promise((resolve, reject) => {
    let timer = null;
    const onReady = () => settle(resolve, { ready: true, ms: Date.now() - t0 });
    const onExit = (exit) => settle(reject, Object.assign(new Error(describeExit(exit)), { exit }));
    const onSpawn = () => {
      timer = setTimeout(onReady, config.min_uptime);
    };
    const event = { listen: 'listening', ready: 'ready', spawn: 'spawn' }[config.ready_on];
    function settle(fn, value) {
      clearTimeout(timer);
      proc.off(event, event === 'spawn' ? onSpawn : onReady);
      proc.off('exit', onExit);
      fn(value);
    }
    if (proc.exited) return onExit(proc.exited);
    proc.once('exit', onExit);
    if (event === 'spawn') {
      proc.once('spawn', onSpawn);
    } else {
      proc.once(event, onReady);
      timer = setTimeout(() => settle(resolve, { ready: false, ms: Date.now() - t0 }), config.listen_timeout);
    }
  });
}

/**
 * Resolves after `ms` if `proc` is still running; rejects (err.exit set) if it exits first.
 * @returns {Promise<void>}
 */
export function survive(proc, ms) {
  const t0 = Date.now();
  return new Promise((resolve, reject) => {
    if (proc.exited) return reject(Object.assign(new Error(`${describeExit(proc.exited)} during probation`), { exit: proc.exited }));
    const onExit = (exit) => {
      clearTimeout(timer);
      reject(Object.assign(new Error(`${describeExit(exit)} during probation (${Date.now() - t0} ms after ready)`), { exit }));
    };
    // A timer runs before the loop reads what is ready: after a stall of the daemon past
    // `ms` (a loaded host), an exit already pending is read first (setImmediate runs after
    // the next poll), so it still fails the probation.
    const timer = setTimeout(() => setImmediate(() => {
      proc.off('exit', onExit);
      resolve();
    }), ms);
    proc.once('exit', onExit);
  });
}
