// Requests an app holds open (a fixture's /hold?ms=N answers its headers at once and ends
// N ms later): in-flight requests a test can make and end at will, with no CPU burnt.
import http from 'node:http';

/**
 * Sends `n` requests to `/hold?ms=${ms}` on fresh connections; resolves once the app has
 * answered their headers (rejects if one gets none within 15 s).
 * @returns {Promise<{release: () => void}>}  release: ends them (destroys the connections)
 */
export async function holdRequests(port, n, ms = 20000) {
  const reqs = [];
  await Promise.all(Array.from({ length: n }, () => new Promise((resolve, reject) => {
    const req = http.get({ host: '127.0.0.1', port, path: `/hold?ms=${ms}`, agent: false }, (res) => {
      res.resume();
      res.on('error', () => {}); // cut by release(), or by a retiring worker
      resolve(undefined);
    });
    req.on('error', () => {});
    req.setTimeout(15000, () => reject(new Error('hold: no headers')));
    reqs.push(req);
  })));
  return { release: () => reqs.forEach((r) => r.destroy()) };
}

/**
 * One GET /hold?ms=N on its own connection; resolves once its headers came, with `done`: the
 * whole answer, or the error that cut it ({status, body, error}), never a rejection.
 * @returns {Promise<{done: Promise<{status: number|undefined, body: string, error: string|null}>}>}
 */
export function heldRequest(port, ms) {
  return new Promise((resolve, reject) => {
    const req = http.get({ host: '127.0.0.1', port, path: `/hold?ms=${ms}`, agent: false }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (d) => (body += d));
      const done = new Promise((ok) => {
        res.on('end', () => ok({ status: res.statusCode, body, error: null }));
        res.on('error', (err) => ok({ status: res.statusCode, body, error: /** @type {any} */ (err).code ?? err.message }));
        res.on('aborted', () => ok({ status: res.statusCode, body, error: 'aborted' }));
      });
      resolve({ done });
    });
    req.on('error', reject);
    req.setTimeout(15000, () => req.destroy(new Error('hold: no headers within 15 s')));
  });
}
