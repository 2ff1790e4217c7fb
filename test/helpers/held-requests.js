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
