// The optional Prometheus endpoint: GET /metrics on `metrics.listen` (host:port; off unless
// set; a bare port in the file arrives here as 127.0.0.1:port, lib/config/normalize-daemon.js,
// so loopback is the default). A small node:http server in the daemon; each scrape
// renders what the monitor already holds (no /proc reads on the scrape path).
import http from 'node:http';
import { parseListen } from '../../config/listen-address.js';
import { boundServer, serverOptions } from '../../ipc/connection-limits.js';

/**
 * @param {string} listen
 * @param {() => Promise<string>} render  the exposition text
 * @returns {Promise<http.Server>}  rejects with the listen error (EADDRINUSE, EACCES, ...)
 */
export function startMetricsEndpoint(listen, render) {
  const server = http.createServer(serverOptions, async (req, res) => {
    if (req.method !== 'GET' && req.method !== 'HEAD') {
      res.writeHead(405, { allow: 'GET, HEAD', 'content-type': 'text/plain' }).end('method not allowed\n');
      return;
    }
    if (req.url !== '/metrics' && !req.url.startsWith('/metrics?')) {
      res.writeHead(404, { 'content-type': 'text/plain' }).end('superd metrics are at /metrics\n');
      return;
    }
    try {
      const text = await render();
      res.writeHead(200, { 'content-type': 'text/plain; version=0.0.4; charset=utf-8' }).end(req.method === 'HEAD' ? undefined : text);
    } catch (err) {
      res.writeHead(500, { 'content-type': 'text/plain' }).end(`metrics failed: ${err.message}\n`);
    }
  });
  // A scraper that stalls, or idle sockets, must not hold the daemon's descriptors.
  boundServer(server, 'metrics');
  const { host, port } = parseListen(listen);
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      server.off('error', reject);
      server.unref();
      resolve(server);
    });
  });
}
