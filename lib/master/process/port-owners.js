// One listening address, one app. In node:cluster the primary keeps one server per
// (address, port, addressType, fd) and hands its connections to every worker that asks for
// that key, whatever program the worker runs (lib/internal/cluster/primary.js queryServer):
// a second app started with the PORT of a running one would be "started" and silently take
// its share of the first app's traffic. So the first app whose worker listens on a key owns
// it until its last worker there closes it or disconnects; a worker of another app asking
// for it gets EADDRINUSE, as two processes would, with the owner named on its stderr.
// Both apps saying `share_port: true` share it, for the rare deliberate case.
// Port 0 ("any free port") is left alone: Node gives every worker asking for it the same
// server too, but no app means a particular port by it. The address is judged as the app
// asked for it, before the seam serves it from an inherited socket. Cost: one Map lookup
// per listen() call of a cluster worker, nothing per connection.
import os from 'node:os';

const UV_EADDRINUSE = -os.constants.errno.EADDRINUSE;

/** address key -> {app, share, workers: Map<worker, count>} */
const owners = new Map();

/**
 * The watch of one worker's listen queries (cluster-internals/worker-hooks.js ListenWatch).
 * @param {{name: string, share_port?: boolean}} app
 * @returns {import('./cluster-internals/worker-hooks.js').ListenWatch}
 */
export function portOwnerWatch(app) {
  const share = app.share_port === true;
  const me = {}; // this worker, in `owners`
  const keys = new Set(); // the address keys this worker holds a server on (its count is in owners)
  const pending = new Map(); // query seq -> address key, until the primary answers
  const servers = new Map(); // Node's key of a server it listens on -> [address key, ...]
  /** Counts this worker's servers on `key` up or down; the last one out frees the key. */
  const own = (key, delta) => {
    const entry = owners.get(key);
    if (!entry) return;
    const n = (entry.workers.get(me) ?? 0) + delta;
    if (n > 0) entry.workers.set(me, n);
    else {
      entry.workers.delete(me);
      keys.delete(key);
    }
    if (entry.workers.size === 0) owners.delete(key);
  };

  return {
    query(q) {
      if (!(Number(q.port) > 0)) return;
      const key = `${q.address}:${q.port}:${q.addressType}:${q.fd}`;
      const entry = owners.get(key);
      if (entry && entry.app !== app.name && !(entry.share && share)) {
        const how = entry.share ? `set share_port: true on ${app.name} too` : `set share_port: true on both apps`;
        return { refuse: `app ${entry.app} listens there; give ${app.name} another port (or, to share it deliberately, ${how})`, errno: UV_EADDRINUSE };
      }
      if (!entry) owners.set(key, { app: app.name, share, workers: new Map() });
      keys.add(key);
      own(key, +1);
      pending.set(q.seq, key);
    },
    answered(seq, { key, errno }) {
      const mine = pending.get(seq);
      if (mine === undefined) return;
      pending.delete(seq);
      if (errno) return own(mine, -1); // the bind failed: nothing held
      if (!servers.has(key)) servers.set(key, []);
      servers.get(key).push(mine);
    },
    closed(key) {
      const mine = servers.get(key)?.pop();
      if (mine === undefined) return;
      if (servers.get(key).length === 0) servers.delete(key);
      own(mine, -1);
    },
    // Node drops a worker's servers when it disconnects; so do we.
    disconnected() {
      for (const key of [...keys]) own(key, -Infinity);
    },
  };
}
