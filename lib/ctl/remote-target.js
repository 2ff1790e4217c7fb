// Where a CLI run talks to a daemon of another host: `--host host:port` (SUPER_HOST), the
// token read from `--token-file` (SUPER_TOKEN_FILE, default $SUPER_HOME/token), and TLS
// with `--tls` (SUPER_TLS=1) or `--tls-ca <file>` (SUPER_TLS_CA; trusts that certificate).
// bin/super.js turns the flags into these variables, so every command sees the same target.
import net from 'node:net';
import { SuperError } from '../errors.js';
import { readFileSafeSync, READ_BOUNDS } from '../safe-read.js';
import { superHome, tokenPath } from '../home.js';
import { parseListen } from '../config/listen-address.js';
import { readToken } from '../ipc/token.js';

const HOST_RE = /^(\[[0-9A-Fa-f:.]+\]|[^\s:[\]/]+):[0-9]{1,5}$/;

/** null for the local daemon; else {where, label} for lib/ipc/client.js connect(). */
export async function remoteTarget(env = process.env) {
  const listen = env.SUPER_HOST;
  if (!listen) return null;
  if (!HOST_RE.test(listen)) throw new SuperError('E_USAGE', `--host ${listen}: give host:port, like 10.0.0.5:9615 or [::1]:9615`);
  const { host, port } = parseListen(listen);
  if (port < 1 || port > 65535) throw new SuperError('E_USAGE', `--host ${listen}: port ${port} is out of range`);

  const tokenFile = env.SUPER_TOKEN_FILE || tokenPath(superHome(env));
  let token;
  try {
    token = await readToken(tokenFile, { followLinks: true });
  } catch (err) {
    throw new SuperError('E_AUTH', `cannot use the token file ${tokenFile}: ${err.code === 'EBADTOKEN' ? 'it does not hold a token (64 hex digits)' : err.code ?? err.message}`);
  }
  if (!token) throw new SuperError('E_AUTH', `the token file ${tokenFile} does not exist; copy the daemon host's token (\`super token\` there prints it) into a file and pass --token-file`);

  const where = { host, port, hostHeader: listen, headers: { authorization: `Bearer ${token}` } };
  const caFile = env.SUPER_TLS_CA;
  if (caFile || env.SUPER_TLS === '1') {
    let ca;
    if (caFile) {
      try {
        ca = readFileSafeSync(caFile, { max: READ_BOUNDS.tls });
      } catch (err) {
        throw new SuperError('E_USAGE', `--tls-ca ${caFile}: cannot read it (${err.code ?? err.message}${err.reason ? `: ${err.reason}` : ''})`);
      }
    }
    const tls = await import('node:tls');
    where.socket = tls.connect({ host, port, ca, servername: net.isIP(host) ? undefined : host });
    where.connectEvent = 'secureConnect';
  }
  return { where, label: `${where.socket ? 'wss' : 'ws'}://${listen}` };
}
