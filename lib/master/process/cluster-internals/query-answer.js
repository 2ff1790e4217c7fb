// The daemon's answer to a worker's listen query ('queryServer'), sent in cluster's place: the
// one builder of that NODE_CLUSTER message. fork.js refuses a query with it (a failed bind),
// reuse-port.js answers one with a socket of the worker's own; shape-check.js checks at boot
// that Node's primary answers with these fields and its worker reads them. A module of its
// own: fork.js imports worker-hooks.js, which imports reuse-port.js.

/** The `cmd` of node:cluster's messages (lib/internal/cluster/utils.js sendHelper). */
export const CLUSTER_CMD = 'NODE_CLUSTER';

/** An act cluster's primary has no handler for (its onmessage drops it): a query the seam answered. */
const TAKEN = 'superd:answeredQuery';

/**
 * Takes listen query `msg` out of cluster's hands, before cluster's own listener (which runs
 * after the seam's) sees the same object: it drops the query, so the seam's answer is the only one.
 * @param {{act: string}} msg  Node's message
 */
export function takeQuery(msg) {
  msg.act = TAKEN;
}

/**
 * The answer to listen query `seq`, as Node's primary.js queryServer builds it ({errno, key,
 * ack, data}; its sendHelper adds cmd and a seq of its own, which the worker does not read).
 * errno 0 with a handle sent beside it: the worker's cluster child listens on that handle as a
 * shared one (child.js shared()) and sends {act: 'close', key} once its server closes. errno < 0
 * and no handle: the worker's listen() fails with that errno (child.js rr(): a failed bind).
 * @param {number} seq  the query's seq
 * @param {number} errno  0, or a negative libuv errno
 * @param {string|null} [key]  the server's key, for an answer with a handle
 * @returns {{cmd: string, errno: number, key: string|null, ack: number, data: null}}
 */
export function queryAnswer(seq, errno, key = null) {
  return { cmd: CLUSTER_CMD, errno, key, ack: seq, data: null };
}
