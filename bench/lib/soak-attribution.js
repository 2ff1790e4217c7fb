// Attributes each failed request of the soak to a cause. The driver records a window for
// each operation (from its start until the app has settled again, plus a grace period)
// and the time of each SIGKILL; the load client tells, per socket, which worker pid
// answered last (the app answers with its pid). A failure is put in the first row that
// fits:
//   1. "SIGKILLed worker's connection": the socket's last answer came from a worker the
//      driver SIGKILLed before the failure (the worker died with the connection);
//   1b. "SIGKILL: new connection, reset": a socket with no answer yet, sent to within 1 s
//      before or after a SIGKILL, reset or closed (not timed out) after it: the primary
//      had handed it to the worker that was killed (one the primary still held would have
//      been handed to another worker), but the client cannot see a pid to prove it;
//   2. the operation window it falls in (by the time the request was sent, or failed):
//      "daemon restart", "SIGKILL (other connection)", "reload", "scale up", "scale down";
//   3. "unexplained": no operation was running.
// Operations never overlap (the driver waits for the app to settle between them), so
// at most one window fits.

export const KILLED_CONN = "SIGKILLed worker's connection";
export const NEW_CONN_AT_KILL = 'SIGKILL: new connection, reset';
export const UNEXPLAINED = 'unexplained';

export class Attribution {
  constructor() {
    this.windows = []; // {kind, start, end}; end null while open
    this.killed = new Map(); // pid -> time of its SIGKILL
    this.rows = new Map(); // cause -> {requests, connects, errors: {error: n}, conns: Set}
  }

  /** Opens a window; returns a function that closes it (at `Date.now() + graceMs`). */
  open(kind) {
    const w = { kind, start: Date.now(), end: null };
    this.windows.push(w);
    return (graceMs = 0) => {
      w.end = Date.now() + graceMs;
    };
  }

  killedAt(pid, at) {
    this.killed.set(pid, at);
    this.lastKill = { pid, at };
  }

  /** From the load client: conn is null when the connect itself failed. */
  failure(conn, error, sentAt, at = Date.now()) {
    const cause = this.classify(conn, error, sentAt, at);
    const row = this.rows.get(cause) ?? { requests: 0, connects: 0, errors: {}, conns: new Set(), samples: [] };
    this.rows.set(cause, row);
    if (conn) {
      row.requests++;
      row.conns.add(conn.id);
    } else {
      row.connects++;
    }
    row.errors[error] = (row.errors[error] ?? 0) + 1;
    // the first few, with what the socket had seen, for investigating unexpected rows
    if (row.samples.length < 10) row.samples.push({ t: at, sentAt, error, conn: conn ? `${conn.keepAlive ? 'ka' : 'close'}#${conn.id}` : null, answered: conn?.answered ?? null, lastPid: conn?.lastPid ?? null, sentSinceLastKill: this.lastKill ? sentAt - this.lastKill.at : null });
  }

  classify(conn, error, sentAt, at) {
    const killedAt = conn?.lastPid ? this.killed.get(conn.lastPid) : undefined;
    if (killedAt !== undefined && killedAt <= at) return KILLED_CONN;
    const k = this.lastKill;
    if (k && conn?.answered === 0 && error !== 'timeout' && at >= k.at && Math.abs(sentAt - k.at) <= 1000) return NEW_CONN_AT_KILL;
    const w = this.windows.find((x) => x.start <= at && sentAt <= (x.end ?? Infinity));
    if (!w) return UNEXPLAINED;
    return w.kind === 'SIGKILL' ? 'SIGKILL (other connection)' : w.kind;
  }
}
