// A strict HTTP/1.1 load client: it counts every request it sends that gets no 2xx
// answer, by cause. autocannon cannot judge a reload: it ignores `Connection: close`
// and silently drops requests written on sockets the server closed
// (docs/measurements.md). Used by bench/reload.js and by the reload tests.
//
// Each connection sends one request at a time, reads the whole response (content-length
// or chunked), honours `Connection: close` (then reconnects), and notices a socket
// the server closed while idle before reusing it, as a pooled client (http.Agent) does.
//
// An optional observer sees each socket's outcomes, to attribute failures to connections
// (bench/soak.js remembers which worker pid last answered on each socket):
//   observer.onResponse(conn, status, body)   conn = {id, answered, keepAlive}, one per socket
//   observer.onFailure(conn, cause, sentAt)   conn is null when the connect itself failed
import net from 'node:net';

/**
 * Starts load on host:port; stops by itself after `maxRequests` or `maxMs`, or when
 * stop() is called. `pauseMs` > 0: each connection waits that long after each answer
 * (a steady stream for tests, instead of all the CPU there is). stop() resolves with the result:
 * {sent, ok, non2xx, failed, errors: {cause: n}, statuses: {code: n}, buckets: [ok per bucketMs], ms}
 */
export function startLoad({ host = '127.0.0.1', port, path = '/', connections = 10, keepAlive = true, maxRequests = Infinity, maxMs = 60000, timeout = 10000, bucketMs = 100, pauseMs = 0, observer = null }) {
  const t0 = Date.now();
  const r = { sent: 0, ok: 0, non2xx: 0, failed: 0, errors: {}, statuses: {}, buckets: [] };
  let stopped = false;
  const request = Buffer.from(`GET ${path} HTTP/1.1\r\nHost: ${host}:${port}\r\n${keepAlive ? '' : 'Connection: close\r\n'}\r\n`);
  let sockets = 0;
  const fail = (cause, conn = null, sentAt = Date.now()) => {
    r.failed++;
    r.errors[cause] = (r.errors[cause] ?? 0) + 1;
    observer?.onFailure(conn, cause, sentAt);
  };
  const stopTimer = setTimeout(() => (stopped = true), maxMs);

  async function loop() {
    while (!stopped) {
      const sock = await open(host, port).catch((err) => {
        fail(`connect ${err.code ?? err.message}`);
        return null;
      });
      if (!sock) {
        await new Promise((res) => setTimeout(res, 20));
        continue;
      }
      const conn = { id: ++sockets, answered: 0, keepAlive };
      while (!stopped && sock.usable) {
        if (r.sent >= maxRequests) {
          stopped = true;
          break;
        }
        r.sent++;
        const sentAt = Date.now();
        const res = await exchange(sock, request, timeout);
        if (res.error) {
          fail(res.error, conn, sentAt);
          break;
        }
        conn.answered++;
        observer?.onResponse(conn, res.status, res.body);
        r.statuses[res.status] = (r.statuses[res.status] ?? 0) + 1;
        if (res.status >= 200 && res.status < 300) {
          r.ok++;
          const b = Math.floor((Date.now() - t0) / bucketMs);
          r.buckets[b] = (r.buckets[b] ?? 0) + 1;
        } else {
          r.non2xx++;
        }
        if (pauseMs > 0) await new Promise((res) => setTimeout(res, pauseMs));
        if (res.close || !keepAlive) break;
      }
      sock.destroy();
    }
  }

  const loops = Array.from({ length: connections }, loop);
  const done = Promise.all(loops).then(() => {
    clearTimeout(stopTimer);
    for (let i = 0; i < r.buckets.length; i++) r.buckets[i] ??= 0;
    return { ...r, ms: Date.now() - t0 };
  });
  return {
    stats: r,
    done,
    stop() {
      stopped = true;
      return done;
    },
  };
}

function open(host, port) {
  return new Promise((resolve, reject) => {
    const sock = net.connect({ host, port, noDelay: true });
    sock.usable = true;
    sock.buf = Buffer.alloc(0);
    sock.waiter = null;
    const onData = (chunk) => {
      sock.buf = sock.buf.length ? Buffer.concat([sock.buf, chunk]) : chunk;
      sock.waiter?.data();
    };
    const onGone = (err) => {
      sock.usable = false;
      sock.gone = err?.code ?? 'EOF before response';
      sock.waiter?.gone();
    };
    sock.on('data', onData);
    sock.on('end', () => onGone());
    sock.on('close', () => onGone());
    sock.on('error', (err) => onGone(err));
    sock.once('connect', () => resolve(sock));
    sock.once('error', reject);
  });
}

/** Writes one request and reads one response: {status, close} or {error: cause}. */
function exchange(sock, request, timeout) {
  return new Promise((resolve) => {
    const timer = setTimeout(() => finish({ error: 'timeout' }), timeout);
    function finish(v) {
      clearTimeout(timer);
      sock.waiter = null;
      if (v.error) sock.usable = false;
      resolve(v);
    }
    sock.waiter = {
      data() {
        const res = parse(sock.buf);
        if (!res) return;
        sock.buf = sock.buf.subarray(res.length);
        finish(res);
      },
      gone() {
        // A complete response may have arrived with the FIN.
        const res = parse(sock.buf);
        finish(res ?? { error: sock.gone ?? 'EOF before response' });
      },
    };
    sock.write(request);
  });
}

/** Parses one complete response at the start of buf, or returns null if incomplete. */
function parse(buf) {
  const end = buf.indexOf('\r\n\r\n');
  if (end < 0) return null;
  const head = buf.subarray(0, end).toString('latin1');
  const status = Number(head.slice(9, 12));
  const lower = head.toLowerCase();
  const close = /\r\nconnection:\s*close/.test(lower);
  const len = /\r\ncontent-length:\s*(\d+)/.exec(lower);
  let length;
  if (len) {
    length = end + 4 + Number(len[1]);
    if (buf.length < length) return null;
  } else if (/\r\ntransfer-encoding:\s*chunked/.test(lower)) {
    // small bodies only: the last chunk is "0\r\n\r\n", at the start or after a chunk
    const body = end + 4;
    if (buf.subarray(body, body + 5).toString('latin1') === '0\r\n\r\n') {
      length = body + 5;
    } else {
      const last = buf.indexOf('\r\n0\r\n\r\n', body);
      if (last < 0) return null;
      length = last + 7;
    }
  } else {
    length = end + 4;
  }
  return { status, close, length, body: buf.subarray(end + 4, length) };
}
