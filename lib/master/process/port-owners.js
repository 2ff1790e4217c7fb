// One listening address, one app. In node:cluster the primary keeps one server per
// (address, port, addressType, fd) and hands its connections to every worker that asks for
// that key, whatever program the worker runs (lib/internal/cluster/primary.js queryServer):
// a second app started with the PORT of a running one would be "started" and silently take
// its share of the first app's traffic. So the first app whose worker listens on a key owns
// it until its last worker there closes it or disconnects; a worker of another app asking
// for it gets EADDRINUSE, as two processes would, with the owner named on its stderr.
// Both apps saying `share_port: true` share it, for the rare deliberate case.
// Port 0 ("any free port") is left alone: Node gives every worker asking for it the same
// server too, but no app means a particular port by it. Cost: one Map lookup per listen()
// call of a cluster worker, nothing per connection.
import os from 'node:os';
import { refuseListen } from './listen-guard.js';

const UV_EADDRINUSE = -os.constants.errno.EADDRINUSE;

/** server key -> {app, share, workers: Map<worker id, count>} */
const owners = new Map();

/**
 * @param {import('node:cluster').Worker} worker
 * @param {{name: string, share_port?: boolean}} app
 */
export function watchPortOwners(worker, app) {
  const proc = worker.process;
  const share = app.share_port === true;
  const keys = new Set(); // the keys this worker holds a server on (its count is in owners)
  /** Counts this worker's servers on `key` up or down; the last one out frees the key. */
  const own = (key, delta) => {
    const entry = owners.get(key);
    if (!entry) return;
    const n = (entry.workers.get(worker.id) ?? 0) + delta;
    if (n > 0) entry.workers.set(worker.id, n);
    else {
      entry.workers.delete(worker.id);
      keys.delete(key);
    }
    if (entry.workers.size === 0) owners.delete(key);
  };

  proc.prependListener('internalMessage', (msg) => {
    if (msg?.cmd !== 'NODE_CLUSTER') return;
    if (msg.act === 'close' && keys.has(msg.key)) return own(msg.key, -1);
    if (msg.act !== 'queryServer' || !(msg.port > 0)) return;
    const key = `${msg.address}:${msg.port}:${msg.addressType}:${msg.fd}`; // as Node keys its servers
    const entry = owners.get(key);
    if (entry && entry.app !== app.name && !(entry.share && share)) {
      const how = entry.share ? `set share_port: true on ${app.name} too` : `set share_port: true on both apps`;
      return refuseListen(proc, msg, `app ${entry.app} listens there; give ${app.name} another port (or, to share it deliberately, ${how})`, UV_EADDRINUSE);
    }
    if (!entry) owners.set(key, { app: app.name, share, workers: new Map() });
    keys.add(key);
    own(key, +1);
  });
  // Node drops a worker's servers when it disconnects; so do we.
  proc.once('disconnect', () => {
    for (const key of [...keys]) own(key, -Infinity);
  });
}
