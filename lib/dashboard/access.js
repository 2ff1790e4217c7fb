// Who may see the dashboard and who may act through it: pure checks of the listen
// address, the Host and Origin headers, and the token, unit-tested directly.
//
// - Loopback only unless told otherwise; any other address needs TLS (or --insecure-http).
// - Seeing needs the dashboard token as acting does, on loopback too: every local user can
//   reach 127.0.0.1, and the Origin header is the client's to choose.
// - Host must name this dashboard (a DNS-rebinding page reaches 127.0.0.1 under its own
//   name, which is refused), and a websocket's Origin must be the dashboard's own origin or
//   one given with --origin: no other site's page can open the socket.
// - Actions need the token, on loopback too, unless --read-only (then there are none).
import net from 'node:net';
import os from 'node:os';
import { tokenMatches } from '../ipc/token.js';
import { isLoopbackHost as isLoopback } from '../config/listen-address.js';

/**
 * The rules of one dashboard, from its listen address and options.
 * @param {{host: string, port: number, tls: boolean, origins?: string[], readOnly?: boolean}} o
 */
export function accessPolicy({ host, port, tls, origins = [], readOnly = false }) {
  const scheme = tls ? 'https' : 'http';
  const bracket = (h) => (net.isIPv6(h) ? `[${h}]` : h);
  const local = ['localhost', '127.0.0.1', '[::1]'];
  // A wildcard address (0.0.0.0, ::) is reached under any of this machine's own names and
  // addresses: those are not a rebinding page's names, so they are accepted as Host.
  const names = isLoopback(host) ? [...local, bracket(host)] : isWildcard(host) ? [...local, ...machineNames().map(bracket)] : [bracket(host)];
  const extra = origins.map((o) => new URL(o));
  const hosts = new Set([...names.map((n) => `${n}:${port}`), ...extra.map((u) => u.host)]);
  const allowedOrigins = new Set([...names.map((n) => `${scheme}://${n}:${port}`), ...extra.map((u) => u.origin)]);
  return {
    loopback: isLoopback(host),
    readOnly,
    hosts,
    allowedOrigins,
  };
}

const isWildcard = (host) => host === '0.0.0.0' || host === '::' || host === '0:0:0:0:0:0:0:0';

/** This machine's host name and the addresses of its interfaces (lower case). */
function machineNames() {
  const addrs = Object.values(os.networkInterfaces()).flat().flatMap((i) => i?.address || []);
  return [...new Set([os.hostname().toLowerCase(), ...addrs.map((a) => a.toLowerCase().replace(/%.*$/, ''))])];
}

/** The Host header names this dashboard (not some other name resolving to its address). */
export const hostAllowed = (policy, hostHeader) => typeof hostHeader === 'string' && policy.hosts.has(hostHeader.toLowerCase());

/** A browser's Origin is this dashboard's own (or one allowed); a missing Origin is refused. */
export const originAllowed = (policy, origin) => typeof origin === 'string' && policy.allowedOrigins.has(origin.toLowerCase());

/**
 * What a connection that showed `given` (or no token) may do: {tokenOk, view, act}. Viewing
 * needs the token everywhere, loopback included.
 * @param {string|null} expected  the dashboard token
 */
export function grants(policy, given, expected) {
  const tokenOk = given != null && tokenMatches(given, expected);
  return { tokenOk, view: tokenOk, act: tokenOk && !policy.readOnly };
}

/**
 * The token a page offers in its websocket subprotocols (`superd.<token>`, beside
 * `superd`): checked at the upgrade, so a page that has the token never waits behind
 * connections that do not (see the slots in server.js). null when none is offered.
 * @param {string|undefined} header  Sec-WebSocket-Protocol
 */
export function subprotocolToken(header) {
  const m = /(?:^|,)\s*superd\.([0-9a-f]{64})\s*(?:,|$)/.exec(header ?? '');
  return m ? m[1] : null;
}

/** The token of an `Authorization: Bearer <token>` header, or null. */
export function bearer(header) {
  const m = /^Bearer ([0-9a-f]{64})$/.exec(header ?? '');
  return m ? m[1] : null;
}
