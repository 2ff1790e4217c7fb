'use strict';
// A daemon that dies (SIGKILL, the OOM killer, a successor of `super upgrade` that ends it
// mid-drain) must not take the requests its workers are serving with it. Node's cluster
// worker exits at once when its IPC channel closes unasked (lib/internal/cluster/child.js:
// process.exit unless worker.exitedAfterDisconnect is set), which resets every connection
// it holds. This listener runs before Node's: it marks the disconnect as expected, so
// Node's does not exit, and drains as for a reload (drain.cjs): stop accepting,
// `Connection: close` on every response, exit once the last connection has ended, and at
// the latest after the app's drain_timeout. Under round-robin the worker gets no new
// connection anyway (the daemon held the listening sockets); under `scheduling: os` it
// closes its copy of the shared socket first. A worker stuck in a loop runs none of this:
// the next daemon of its home ends its group once that drain_timeout has passed
// (lib/master/process/group-record.js).
/** @type {import('node:cluster').Cluster} require() gives the cluster object; Node's typings declare it an ES default export */
const cluster = /** @type {any} */ (require('node:cluster'));

/**
 * @param {(timeout: number) => Promise<unknown>} drain  drain.cjs's drain
 * @param {number} timeout  the app's drain_timeout (ms)
 */
function outliveDaemon(drain, timeout) {
  if (!cluster.isWorker || !(timeout > 0)) return;
  process.prependOnceListener('disconnect', () => {
    const worker = cluster.worker;
    if (!worker || worker.exitedAfterDisconnect) return; // the daemon asked: Node's own exit follows
    worker.exitedAfterDisconnect = true;
    setTimeout(() => process.exit(0), timeout); // ref'd: the worker ends by then whatever else runs
    drain(timeout).then(() => process.exit(0), () => process.exit(0));
  });
}

module.exports = { outliveDaemon };
