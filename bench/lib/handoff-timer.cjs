'use strict';
// --handoff of bench/connections.js: preloaded through NODE_OPTIONS into the processes of a
// target, it times, in a node:cluster primary (a bare one or superd's daemon), each
// round-robin handoff: from the primary's send of a connection to a worker ('newconn') to
// the worker's receipt (its 'accepted' answer), the round trip every new connection waits
// before the app sees it. At exit it writes HANDOFF_DIR/<pid>.json: {count, p50, p90, p99}
// in µs. Workers, CLIs and threads do nothing.
const fs = require('node:fs');
const path = require('node:path');
// require() gives the cluster object; Node's typings declare it an ES default export.
const cluster = /** @type {import('node:cluster').Cluster} */ (/** @type {unknown} */ (require('node:cluster')));
const { isMainThread } = require('node:worker_threads');

const dir = process.env.HANDOFF_DIR;
if (dir && cluster.isPrimary && isMainThread) {
  const MAX = 1 << 20;
  const samples = new Float64Array(MAX);
  let count = 0;
  cluster.on('fork', (worker) => {
    const proc = worker.process;
    const sentAt = new Map(); // seq -> ms
    const send = proc.send;
    proc.send = function sendTimed(message) {
      if (message?.cmd === 'NODE_CLUSTER' && message.act === 'newconn') sentAt.set(message.seq, performance.now());
      return send.apply(this, arguments);
    };
    proc.on('internalMessage', (m) => {
      if (m?.cmd !== 'NODE_CLUSTER' || m.accepted === undefined) return;
      const t = sentAt.get(m.ack);
      if (t === undefined) return;
      sentAt.delete(m.ack);
      if (count < MAX) samples[count++] = (performance.now() - t) * 1000;
    });
  });
  process.on('exit', () => {
    const v = samples.slice(0, count).sort();
    const at = (p) => (count ? Math.round(v[Math.min(count - 1, Math.floor(p * count))]) : null);
    fs.writeFileSync(path.join(dir, `${process.pid}.json`), JSON.stringify({ count, p50: at(0.5), p90: at(0.9), p99: at(0.99) }));
  });
}
