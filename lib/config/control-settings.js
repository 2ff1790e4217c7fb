// The rule for control.listen that the schema cannot say: a TCP control listener on an
// address other machines can reach needs TLS (the token must not cross a network in clear).
// Shared by the ecosystem loader and `super daemon --listen`.
import { parseListen, isLoopbackHost } from './listen-address.js';

/** A problem message, or null when `listen` may be served (with `tls` as given). */
export function controlListenProblem(listen, tls) {
  if (typeof listen !== 'string') return null;
  const { host } = parseListen(listen);
  if (isLoopbackHost(host) || tls) return null;
  return `${listen} can be reached from other machines, and the token would cross the network in clear: `
    + 'configure control.tls (cert and key) to serve it over TLS, or listen on a loopback address (127.0.0.1, [::1])';
}
