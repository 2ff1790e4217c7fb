// The `.socket` unit `super startup systemd --socket LISTEN...` writes beside the service:
// systemd holds the apps' listening sockets and passes them to the daemon at each start
// (LISTEN_FDS; a socket unit with the service's name is the service's by default). The
// daemon adopts them (lib/master/upgrade/inherited-sockets.js) and an app listening on the
// same address:port serves the inherited socket, so while the daemon restarts or after it
// crashed, connections wait in the kernel's queue instead of being refused.
import { SuperError } from '../errors.js';
import { unitName } from './systemd-unit.js';

const LISTEN_RE = /^(?:(\d{1,3}(?:\.\d{1,3}){3}|\[[0-9A-Fa-f:.]+\]):)?(\d{1,5})$/;

/** The socket unit's file name: the service's, with .socket. */
export const socketUnitName = (o) => unitName(o).replace(/\.service$/, '.socket');

/**
 * Checks --socket values: PORT (every address, IPv4 and IPv6), IPv4:PORT or [IPv6]:PORT.
 * @param {string[]} values
 * @returns {string[]} ListenStream= values
 * @throws {SuperError} E_USAGE
 */
export function socketListens(values) {
  return values.map((v) => {
    const m = LISTEN_RE.exec(v);
    const port = m ? Number(m[2]) : 0;
    if (!m || port < 1 || port > 65535) {
      throw new SuperError('E_USAGE', `--socket ${v}: give a port (3000), an IPv4 address and port (127.0.0.1:3000) or [IPv6]:port, with the address the app listens on`);
    }
    return v;
  });
}

/**
 * @param {{user: boolean, username: string, listens: string[]}} o  listens from socketListens
 */
export function renderSocketUnit({ user, username, listens }) {
  const who = user ? `user ${username}` : username;
  return `# superd: the listening sockets of ${who}'s apps (written by \`super startup systemd --socket\`).
# systemd keeps them open while the daemon restarts: connections wait in the kernel's queue
# instead of being refused. The daemon adopts them (LISTEN_FDS) and an app that listens on
# the same address and port serves them. Give each the address the app listens on: a bare
# port is every address (an app then listens without a host, or on :: / 0.0.0.0).
[Unit]
Description=superd listening sockets (${who})

[Socket]
${listens.map((l) => `ListenStream=${l}`).join('\n')}
FileDescriptorName=superd
Service=${unitName({ user, username })}

[Install]
WantedBy=sockets.target
`;
}
