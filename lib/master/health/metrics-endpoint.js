// The optional metrics listener on `metrics.listen` (host:port; off unless set; a bare port
// in the file arrives here as 127.0.0.1:port, lib/config/normalize-daemon.js, so loopback is
// the default). A small node:http server in the daemon:
//   GET /metrics           Prometheus text; each scrape renders what the monitor already
//                          holds (no /proc reads on the scrape path)
//   GET /healthz           200 while the daemon's event loop turns on time, 503 after a stall
//   GET /readyz[?app=api]  200 when the app (every app not stopped, without ?app=) has its
//                          desired number of ready workers, 503 otherwise, 404 unknown app
import http from 'node:http';
import { parseListen } from '../../config/listen-address.js';
import { inheritedSocket } from '../upgrade/index.js';
import { boundServer, serverOptions } from '../../ipc/connection-limits.js';

/** The heartbeat of /healthz: a timer that ticks late means the daemon's loop was stuck. */
const BEAT_MS = 500;
const STALL_MS = 1000; // a beat later than this (beyond BEAT_MS) is a stall

const TEXT = { 'content-type': 'text/plain; charset=utf-8' };
const JSON_TYPE = { 'content-type': 'application/json' };

/**
 * @param {string} listen
 * @param {object} o
 * @param {() => Promise<string>} o.render  the exposition text
 * @param {(app: string|null) => ({app: string, desired: number, ready: number, ok: boolean}[]|null)} o.readiness
 *   null for an unknown app (health/monitor.js readiness)
 * @returns {Promise<import('node:http').Server>}  rejects with the listen error (EADDRINUSE, EACCES, ...)
 */
export function startMetricsEndpoint(listen, { render, readiness }) {
  let lastBeat = Date.now();
  let worstLate = 0; // the latest beat's lateness, ms
  const beat = setInterval(() => {
    const now = Date.now();
    worstLate = Math.max(0, now - lastBeat - BEAT_MS);
    lastBeat = now;
  }, BEAT_MS).unref();

  const routes = {
    '/metrics': async (req, res) => {
      const text = await render();
      res.writeHead(200, { 'content-type': 'text/plain; version=0.0.4; charset=utf-8' }).end(req.method === 'HEAD' ? undefined : text);
    },
    '/healthz': (req, res) => {
      // A beat overdue now, or the last one late: the loop is (or just was) stuck.
      const late = Math.max(worstLate, Date.now() - lastBeat - BEAT_MS);
      const ok = late <= STALL_MS;
      res.writeHead(ok ? 200 : 503, JSON_TYPE).end(JSON.stringify({ ok, pid: process.pid, loop_late_ms: late }));
    },
    '/readyz': (req, res, url) => {
      const name = url.searchParams.get('app');
      const apps = readiness(name);
      if (apps === null) {
        res.writeHead(404, JSON_TYPE).end(JSON.stringify({ ok: false, error: `no app named ${JSON.stringify(name)}` }));
        return;
      }
      const ok = apps.every((a) => a.ok);
      res.writeHead(ok ? 200 : 503, JSON_TYPE).end(JSON.stringify({ ok, apps }));
    },
  };

  const server = http.createServer(serverOptions, async (req, res) => {
    if (req.method !== 'GET' && req.method !== 'HEAD') {
      res.writeHead(405, { ...TEXT, allow: 'GET, HEAD' }).end('method not allowed\n');
      return;
    }
    let url;
    try {
      url = new URL(req.url ?? '/', 'http://localhost'); // a server's request always has one
    } catch {
      res.writeHead(400, TEXT).end('bad request target\n');
      return;
    }
    const route = Object.hasOwn(routes, url.pathname) ? routes[url.pathname] : null;
    if (!route) {
      res.writeHead(404, TEXT).end('superd serves /metrics, /healthz and /readyz here\n');
      return;
    }
    try {
      await route(req, res, url);
    } catch (err) {
      res.writeHead(500, TEXT).end(`${url.pathname} failed: ${err.message}\n`);
    }
  });
  server.on('close', () => clearInterval(beat));
  // A scraper that stalls, or idle sockets, must not hold the daemon's descriptors.
  boundServer(server, 'metrics');
  const { host, port } = parseListen(listen);
  return new Promise((resolve, reject) => {
    server.once('error', (err) => {
      clearInterval(beat);
      reject(err);
    });
    // The same socket as the daemon this one replaced (`super upgrade`), if it was handed over.
    const fd = inheritedSocket(host, port);
    server.listen(fd === null ? { port, host } : { fd }, () => {
      server.removeAllListeners('error');
      server.unref();
      resolve(server);
    });
  });
}
