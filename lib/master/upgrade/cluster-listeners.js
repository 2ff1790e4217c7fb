// Lets a retiring daemon stop accepting on its apps' listening sockets before its workers
// drain, so that every new connection goes to the successor (which holds the same sockets).
// Without it, the old daemon's round-robin handles keep accepting while its workers drain,
// and the connections it accepted after its last worker closed are reset.
//
// Node keeps a round-robin listener out of reach: RoundRobinHandle (lib/internal/cluster/
// round_robin_handle.js, Node 20 to 24) creates `net.createServer(fail)`, calls listen(),
// then on 'listening' takes the server's raw handle and drops the server. Wrapping
// net.Server.prototype.listen in the primary sees that call: for a server whose only
// 'connection' listener is cluster's `fail`, a 'listening' listener registered inside
// listen() runs before cluster's and records the raw handle. If Node changes this, nothing
// is recorded and retirement falls back to the workers' drain alone.
//
// Connections accepted before that wait in the handle's queue for a free worker: retiring
// the workers at once would refuse them (a draining worker refuses a handed connection,
// and with no worker left it is closed). So the retiring daemon first waits until no
// connection has been handed to a worker for a moment (quiesce).
import net from 'node:net';
import cluster from 'node:cluster';

const QUIET_MS = 100; // no handoff for this long: the queues are empty
const QUIESCE_MAX_MS = 3000;

/** Raw listening handles of the round-robin servers of this primary. */
const handles = new Set();
let installed = false;
let lastHandoff = 0; // when a worker last answered a handed connection

export function trackClusterListeners() {
  if (installed) return;
  installed = true;
  cluster.on('fork', (worker) => worker.process.on('internalMessage', (m) => {
    if (m?.cmd === 'NODE_CLUSTER' && m.accepted !== undefined) lastHandoff = Date.now();
  }));
  const listen = net.Server.prototype.listen;
  net.Server.prototype.listen = function listenTracked(...args) {
    const own = this.listeners('connection');
    if (own.length === 1 && own[0].name === 'fail') {
      this.once('listening', () => {
        const raw = /** @type {any} libuv's handle: Node internals, no public API gives it */ (this)._handle;
        if (!raw) return;
        handles.add(raw);
        const close = raw.close;
        raw.close = function closeTracked(...a) {
          handles.delete(raw);
          return close.apply(this, a);
        };
      });
    }
    return listen.apply(this, args);
  };
}

/**
 * Stops accepting new connections on every round-robin listener, then resolves once the
 * connections already accepted have been handed to workers (bounded).
 * @returns {Promise<number>} how many listeners were closed
 */
export async function stopAccepting() {
  const n = handles.size;
  for (const raw of [...handles]) raw.close();
  const deadline = Date.now() + QUIESCE_MAX_MS;
  while (Date.now() - lastHandoff < QUIET_MS && Date.now() < deadline) await new Promise((r) => setTimeout(r, QUIET_MS / 4));
  return n;
}
