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
import net from 'node:net';

/** Raw listening handles of the round-robin servers of this primary. */
const handles = new Set();
let installed = false;

export function trackClusterListeners() {
  if (installed) return;
  installed = true;
  const listen = net.Server.prototype.listen;
  net.Server.prototype.listen = function listenTracked(...args) {
    const own = this.listeners('connection');
    if (own.length === 1 && own[0].name === 'fail') {
      this.once('listening', () => {
        const raw = this._handle;
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

/** Stops accepting new connections on every round-robin listener; returns how many. */
export function stopAccepting() {
  const n = handles.size;
  for (const raw of [...handles]) raw.close();
  return n;
}
