// The optional Prometheus endpoint: GET /metrics on `metrics.listen` (host:port; off unless
// set; a bare port in the file arrives here as 127.0.0.1:port, lib/config/normalize-daemon.js,
// so loopback is the default). A small node:http server in the daemon; each scrape
// renders what the monitor already holds (no /proc reads on the scrape path).
import http from 'node:http';
import { parseListen } from '../../config/listen-address.js';
import { inheritedSocket } from '../upgrade/index.js';

/**
 * @param {string} listen
 * @param {() => Promise<string>} render  the exposition text
 * @returns {Promise<http.Server>}  rejects with the listen error (EADDRINUSE, EACCES, ...)
 */
export function startMetricsEndpoint(listen, render) {
  const server = http.createServer(async (req, res) => {
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
  // A scraper that stalls must not hold daemon sockets for long.
  server.requestTimeout = 10000;
  server.headersTimeout = 5000;
  const { host, port } = parseListen(listen);
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    // The same socket as the daemon this one replaced (`super upgrade`), if it was handed over.
    const fd = inheritedSocket(host, port);
    server.listen(fd === null ? { port, host } : { fd }, () => {
      server.off('error', reject);
      server.unref();
      resolve(server);
    });
  });
}
