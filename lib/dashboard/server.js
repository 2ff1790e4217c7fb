// The dashboard's HTTP(S) server: the page's few files (from this package: no CDN, works
// offline), one websocket per page (/ws), and the downloads of profiles and heap snapshots.
// Every response carries a strict Content-Security-Policy: scripts and styles of this
// origin only, no inline code, connections to this origin only, no framing.
import http from 'node:http';
import https from 'node:https';
import fs from 'node:fs';
import path from 'node:path';
import crypto from 'node:crypto';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import { WebSocketServer } from 'ws';
import { hostAllowed, originAllowed, grants, subprotocolToken } from './access.js';
import { peerUid } from './peer-uid.js';
import { actionProblem, runAction, ACTIONS } from './actions.js';

const PAGE_DIR = path.join(path.dirname(fileURLToPath(import.meta.url)), 'page');
const require = createRequire(import.meta.url);
/** A package's dist/ directory (its entry file's; none of the three exports package.json). */
const vendorDir = (pkg) => path.dirname(require.resolve(pkg));

const MAX_PAGES = 32; // websocket connections that showed the token, at once
// Connections that have not (yet): a few, each for a short while, the oldest closed first
// when another comes; so no one without the token can keep the operator's page out.
const MAX_UNPROVEN = 8;
const MAX_MESSAGE = 16 * 1024; // bytes of one message from a page
const MAX_ACTIONS_IN_FLIGHT = 4; // per page
const MAX_DOWNLOADS = 16;
const DOWNLOAD_TTL_MS = 15 * 60_000;
const AUTH_WAIT_MS = 10_000;
const MAX_WRONG_TOKENS = 5; // per connection; then it is closed

const CSP = "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self'; connect-src 'self'; " +
  "base-uri 'none'; form-action 'none'; frame-ancestors 'none'";
const HEADERS = { 'content-security-policy': CSP, 'x-content-type-options': 'nosniff', 'referrer-policy': 'no-referrer', 'x-frame-options': 'DENY', 'cache-control': 'no-cache' };
const TYPES = { '.html': 'text/html; charset=utf-8', '.js': 'text/javascript; charset=utf-8', '.mjs': 'text/javascript; charset=utf-8', '.css': 'text/css; charset=utf-8' };

/** URL path -> file: the page's own files and the three libraries it uses. */
function staticFiles() {
  return {
    '/': path.join(PAGE_DIR, 'index.html'),
    '/app.js': path.join(PAGE_DIR, 'app.js'),
    '/view.js': path.join(PAGE_DIR, 'view.js'),
    '/charts.js': path.join(PAGE_DIR, 'charts.js'),
    '/history.js': path.join(PAGE_DIR, '..', 'history.js'), // the points, computed as here
    '/style.css': path.join(PAGE_DIR, 'style.css'),
    '/vendor/preact.mjs': path.join(vendorDir('preact'), 'preact.mjs'),
    '/vendor/htm.mjs': path.join(vendorDir('htm'), 'htm.mjs'),
    // uPlot ships no minified ES module: its minified script defines the global uPlot
    '/vendor/uplot.js': path.join(vendorDir('uplot'), 'uPlot.iife.min.js'),
    '/vendor/uplot.css': path.join(vendorDir('uplot'), 'uPlot.min.css'),
  };
}

/** The files read once, at start: {url: {body, type}}. */
export function loadPage() {
  return Object.fromEntries(Object.entries(staticFiles()).map(([url, file]) => [url, { body: fs.readFileSync(file), type: TYPES[path.extname(file)] ?? TYPES['.html'] }]));
}

/**
 * @param {{hub: import('./hub.js').Hub, policy: object, token: string, host: string, port: number, tls?: {cert, key}|null,
 *   codes?: import('./open-codes.js').OneTimeCodes|null}} o
 *   codes: the one-time codes of --open, each traded once for the token
 * @returns {Promise<{server, address: object, close(): Promise<void>}>} once listening on host:port
 */
export async function startServer({ hub, policy, token, host, port, tls, codes = null }) {
  const page = loadPage();
  const downloads = new Map(); // id -> {file, expires, owned}
  // owned: a copy fetched from another host into a directory of our own, removed with its entry
  const forget = (id) => {
    const d = downloads.get(id);
    downloads.delete(id);
    if (d?.owned) fs.rm(path.dirname(d.file), { recursive: true, force: true }, () => {});
  };

  const offer = (file, { owned = false } = {}) => {
    const now = Date.now();
    for (const [id, d] of downloads) if (d.expires < now) forget(id);
    while (downloads.size >= MAX_DOWNLOADS) forget(downloads.keys().next().value);
    const id = crypto.randomBytes(16).toString('hex'); // the link itself is the permission: given only to a page that may act
    downloads.set(id, { file, expires: now + DOWNLOAD_TTL_MS, owned });
    return `/download/${id}`;
  };

  const onRequest = (req, res) => {
    if (!hostAllowed(policy, req.headers.host)) return refuse(res, 403, 'unknown Host');
    if (req.method !== 'GET' && req.method !== 'HEAD') return refuse(res, 405, 'GET only');
    const url = req.url.split('?')[0];
    const m = /^\/download\/([0-9a-f]{32})$/.exec(url);
    if (m) return sendDownload(res, downloads.get(m[1]));
    if (url === '/favicon.ico') return res.writeHead(204, HEADERS).end();
    const f = Object.hasOwn(page, url) ? page[url] : null;
    if (!f) return refuse(res, 404, 'not found');
    res.writeHead(200, { ...HEADERS, 'content-type': f.type, 'content-length': f.body.length });
    res.end(req.method === 'HEAD' ? undefined : f.body);
  };

  const server = tls ? https.createServer({ cert: tls.cert, key: tls.key }, onRequest) : http.createServer(onRequest);
  server.headersTimeout = 10_000;
  server.requestTimeout = 30_000;
  // A page offers `superd` and, when it has the token, `superd.<token>`: the answer is `superd`.
  const wss = new WebSocketServer({ noServer: true, maxPayload: MAX_MESSAGE, perMessageDeflate: false, handleProtocols: (protocols) => (protocols.has('superd') ? 'superd' : false) });
  const proven = new Set(); // the websockets of pages that showed the token
  const unproven = new Set(); // the others, oldest first

  server.on('upgrade', (req, socket, head) => {
    const deny = (status) => {
      socket.end(`HTTP/1.1 ${status} ${http.STATUS_CODES[status]}\r\nConnection: close\r\nContent-Length: 0\r\n\r\n`);
    };
    if (req.url !== '/ws') return deny(404);
    if (!hostAllowed(policy, req.headers.host)) return deny(403);
    if (!originAllowed(policy, req.headers.origin)) return deny(403);
    const offered = subprotocolToken(req.headers['sec-websocket-protocol']);
    const access = grants(policy, offered, token);
    if (access.view && proven.size >= MAX_PAGES) return deny(503);
    if (!access.view && unproven.size >= MAX_UNPROVEN) {
      const oldest = unproven.values().next().value;
      unproven.delete(oldest);
      oldest.terminate(); // not a close handshake: a peer that never answers it would keep its socket
    }
    // a wrong token (a tab's, from before the dashboard restarted) is let in as no token: the page asks for the new one
    wss.handleUpgrade(req, socket, head, (ws) => onPage(ws, req.headers.origin, access, socket));
  });

  function onPage(ws, origin, initial, socket) {
    let access = initial;
    let inFlight = 0;
    const viewer = {
      sendText: (text) => ws.readyState === ws.OPEN && ws.send(text),
      send: (obj) => viewer.sendText(JSON.stringify(obj)),
      backlog: () => ws.bufferedAmount,
    };
    let wrongTokens = 0;
    const hello = () => viewer.send({ type: 'hello', canAct: access.act, readOnly: policy.readOnly, needToken: !access.view });
    hello();
    let watching = false;
    const watch = () => {
      if (watching || !access.view) return;
      if (!proven.has(ws) && proven.size >= MAX_PAGES) return ws.close(4503, 'too many pages');
      unproven.delete(ws);
      proven.add(ws);
      watching = true;
      clearTimeout(authTimer ?? undefined);
      hub.addViewer(viewer);
    };
    // A page that must show a token and does not is not kept open.
    const authTimer = access.view ? null : setTimeout(() => ws.close(4401, 'token required'), AUTH_WAIT_MS);
    if (!access.view) unproven.add(ws);
    watch();

    ws.on('message', async (data, isBinary) => {
      let m;
      try {
        m = isBinary ? null : JSON.parse(data.toString('utf8'));
      } catch {}
      if (!m || typeof m !== 'object') return viewer.send({ type: 'error', error: { code: 'E_BAD_REQUEST', message: 'send JSON objects' } });
      if (m.type === 'auth' && typeof m.code === 'string') {
        // --open's one-time code: spent by its first use, and only for this user's own browser
        // (the user checked first: another user's attempt does not spend the operator's code)
        if (!access.view && (await sameUser(socket)) && codes?.redeem(m.code)) {
          access = grants(policy, token, token);
          viewer.send({ type: 'token', token });
        } else viewer.send({ type: 'error', error: { code: 'E_AUTH', message: 'this one-time link was used already or has expired; open the link `super dashboard` printed' } });
        hello();
        return watch();
      }
      if (m.type === 'auth') {
        access = grants(policy, typeof m.token === 'string' ? m.token : null, token);
        if (typeof m.token === 'string' && !access.tokenOk) {
          viewer.send({ type: 'error', error: { code: 'E_AUTH', message: 'wrong dashboard token' } });
          if (++wrongTokens >= MAX_WRONG_TOKENS) return ws.close(4401, 'too many wrong tokens');
        }
        hello();
        return watch();
      }
      if (m.type !== 'action') return viewer.send({ type: 'error', error: { code: 'E_BAD_REQUEST', message: 'unknown message type' } });
      const reply = (ok, body) => viewer.send({ type: 'result', id: Number.isSafeInteger(m.id) ? m.id : null, ok, ...body });
      const problem = actionProblem(m, [...hub.hosts.keys()]);
      if (problem) return reply(false, { error: { code: 'E_BAD_REQUEST', message: problem } });
      // Every action is checked again here, not only at the upgrade: Origin and token.
      if (!originAllowed(policy, origin) || !access.view) return reply(false, { error: { code: 'E_AUTH', message: 'not allowed' } });
      if (ACTIONS[m.action].changes && !access.act) {
        return reply(false, { error: { code: 'E_AUTH', message: policy.readOnly ? 'this dashboard is read-only' : 'actions need the dashboard token (`super dashboard` printed the link that carries it)' } });
      }
      if (inFlight >= MAX_ACTIONS_IN_FLIGHT) return reply(false, { error: { code: 'E_BUSY', message: `at most ${MAX_ACTIONS_IN_FLIGHT} actions at once` } });
      inFlight++;
      try {
        const data = await runAction(hub.link(m.host), m, { offer, history: (host, app) => hub.history.dump(host, app), onProgress: (p) => viewer.send({ type: 'progress', id: m.id, data: p }) });
        reply(true, { data });
      } catch (err) {
        reply(false, { error: { code: err.code ?? 'E_INTERNAL', message: err.message } });
      } finally {
        inFlight--;
      }
    });
    ws.on('close', () => {
      clearTimeout(authTimer ?? undefined);
      proven.delete(ws);
      unproven.delete(ws);
      hub.removeViewer(viewer);
    });
    ws.on('error', () => ws.terminate());
  }

  await /** @type {Promise<void>} */ (new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      server.off('error', reject);
      resolve();
    });
  }));
  return {
    server,
    address: server.address(),
    close: () => new Promise((resolve) => {
      for (const id of [...downloads.keys()]) forget(id);
      for (const ws of wss.clients) ws.terminate();
      server.close(() => resolve());
      server.closeAllConnections?.();
    }),
  };
}

/** The peer runs as this process's user (when the kernel's socket table says who it is). */
async function sameUser(socket) {
  const uid = await peerUid(socket).catch(() => null);
  return uid === null || uid === process.getuid?.();
}

function refuse(res, status, text) {
  res.writeHead(status, { ...HEADERS, 'content-type': 'text/plain; charset=utf-8' });
  res.end(`${text}\n`);
}

function sendDownload(res, d) {
  if (!d || d.expires < Date.now()) return refuse(res, 404, 'no such download (they expire after 15 minutes)');
  let st;
  try {
    st = fs.statSync(d.file);
  } catch {
    return refuse(res, 404, 'the file is gone');
  }
  res.writeHead(200, { ...HEADERS, 'content-type': 'application/octet-stream', 'content-length': st.size, 'content-disposition': `attachment; filename="${path.basename(d.file).replace(/[^\w.-]/g, '_')}"` });
  fs.createReadStream(d.file).pipe(res);
}
