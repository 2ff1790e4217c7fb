// `host:port` strings of the ecosystem file (control.listen, metrics.listen).
import net from 'node:net';

/** "127.0.0.1:9209" | "[::1]:9209" | "localhost:9209" -> {host, port} */
export function parseListen(listen) {
  const i = listen.lastIndexOf(':');
  return { host: listen.slice(0, i).replace(/^\[(.*)\]$/, '$1'), port: Number(listen.slice(i + 1)) };
}

/**
 * Whether `host` can only be reached from this machine: 127.0.0.0/8, ::1, ::ffff:127.x, or
 * the name localhost. Any other name counts as reachable from outside (a name may resolve
 * to anything; checking it here would need a lookup).
 */
export function isLoopbackHost(host) {
  const h = host.toLowerCase();
  if (h === 'localhost') return true;
  if (net.isIPv4(h)) return h.startsWith('127.');
  if (net.isIPv6(h)) return h === '::1' || /^::ffff:127\./.test(h) || /^0{0,4}(:0{0,4}){6}:0{0,3}1$/.test(h);
  return false;
}
