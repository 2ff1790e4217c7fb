// Lets a retiring daemon stop accepting on its apps' listening sockets before its workers
// drain, so that every new connection goes to the successor (which holds the same sockets).
// Without it, the old daemon's round-robin handles keep accepting while its workers drain,
// and the connections it accepted after its last worker closed are reset.
//
// The seam to node:cluster (process/cluster-internals/round-robin-listeners.js, tracking
// from boot) records each round-robin listener's raw handle when cluster creates it;
// closing them closes only this process's descriptors.
//
// Connections accepted before that wait in the handle's queue for a free worker: retiring
// the workers at once would refuse them (a draining worker refuses a handed connection,
// and with no worker left it is closed). So the retiring daemon first waits until no
// connection has been handed to a worker for a moment (quiesce).
import { closeRoundRobinListeners, lastHandoffAt } from '../process/index.js';

const QUIET_MS = 100; // no handoff for this long: the queues are empty
const QUIESCE_MAX_MS = 3000;

/**
 * Stops accepting new connections on every round-robin listener, then resolves once the
 * connections already accepted have been handed to workers (bounded).
 * @returns {Promise<number>} how many listeners were closed
 */
export async function stopAccepting() {
  const n = closeRoundRobinListeners();
  const deadline = Date.now() + QUIESCE_MAX_MS;
  while (Date.now() - lastHandoffAt() < QUIET_MS && Date.now() < deadline) await new Promise((r) => setTimeout(r, QUIET_MS / 4));
  return n;
}
