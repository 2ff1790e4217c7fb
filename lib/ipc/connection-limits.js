// Bounds on what peers of the daemon's own listeners may hold: the local control socket,
// the TCP control listener, the metrics endpoint and the HAProxy agent-check listener. The daemon is the cluster primary: in
// round-robin mode every connection to every app is accepted by it, and each needs one of
// its file descriptors. Idle or slow peers of superd's own listeners must never use those
// up, so each listener holds at most a share of the descriptor limit (RLIMIT_NOFILE, soft),
// and at most its default: together they never take more than half, the rest is the
// reserve for the apps' accepts, the workers' pipes and log files.
// A connection beyond the bound is accepted and closed at once (net.Server#maxConnections).
import fs from 'node:fs';

/** Default bound and share of the descriptor limit of each listener. */
const LISTENER_BOUNDS = {
  local: { max: 256, share: 1 / 4 },
  remote: { max: 256, share: 1 / 8 },
  metrics: { max: 64, share: 3 / 32 },
  agent: { max: 16, share: 1 / 32 }, // HAProxy's agent checks: answered and closed at once
};
/** Time a peer has to send its request headers (each listener speaks HTTP first). */
const HEADERS_TIMEOUT_MS = 10_000;
/** A connection that sends nothing for this long is closed (websockets excepted: ws clears it). */
const IDLE_TIMEOUT_MS = 30_000;
const CHECK_INTERVAL_MS = 2_000;

let nofile;
/** The soft RLIMIT_NOFILE of this process (Linux: /proc/self/limits), or Infinity. */
function descriptorLimit() {
  if (nofile === undefined) {
    try {
      const m = /^Max open files\s+(\d+|unlimited)/m.exec(fs.readFileSync('/proc/self/limits', 'utf8'));
      nofile = m && m[1] !== 'unlimited' ? Number(m[1]) : Infinity;
    } catch {
      nofile = Infinity;
    }
  }
  return nofile;
}

/** The most connections listener `kind` may hold at once. */
function connectionBound(kind) {
  const { max, share } = LISTENER_BOUNDS[kind];
  return Math.max(4, Math.min(max, Math.floor(descriptorLimit() * share)));
}

/** http.createServer options that make the header timeout checked often enough to matter. */
export const serverOptions = { connectionsCheckingInterval: CHECK_INTERVAL_MS };

/** Applies the connection bound of listener `kind` to a plain net server; returns it. */
export function boundNetServer(server, kind) {
  server.maxConnections = connectionBound(kind);
  return server;
}

/** Applies the bounds of listener `kind` to an http(s) server; returns it. */
export function boundServer(server, kind) {
  server.maxConnections = connectionBound(kind);
  server.headersTimeout = HEADERS_TIMEOUT_MS;
  server.requestTimeout = HEADERS_TIMEOUT_MS; // a request is its headers: none has a body to wait for
  server.keepAliveTimeout = 5_000;
  server.timeout = IDLE_TIMEOUT_MS;
  return server;
}
