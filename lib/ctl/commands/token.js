// super token [--rotate]: print the token of the TCP control listener ($SUPER_HOME/token,
// 0600), creating it on first use; --rotate replaces it. A running daemon read the file when
// its listener opened and never reads it again, so both ask the daemon (over the local
// socket) when one runs; with none running, the file is read or replaced here. A rotated
// token is the only one accepted from the next connection on (connections already open
// stay open).
import { superHome, tokenPath, prepareHome } from '../../home.js';
import { ensureToken, rotateToken } from '../../ipc/token.js';
import { connect } from '../../ipc/client.js';
import { SuperError } from '../../errors.js';

export default async function token(opts = {}) {
  const home = superHome();
  prepareHome(home); // E_HOME for a SUPER_HOME that is not ours or open to others
  const file = tokenPath(home);
  const rotate = opts.rotate === true;
  let value;
  try {
    value = await fromDaemon(home, rotate) ?? await (rotate ? rotateToken(file) : ensureToken(file));
  } catch (err) {
    if (err instanceof SuperError) throw err;
    throw new SuperError('E_AUTH', err.code === 'EBADTOKEN' ? err.message : `${file}: ${err.message}`);
  }
  process.stdout.write(`${value}\n`);
  if (rotate) process.stderr.write(`super: a new token is in ${file}; the old one is no longer accepted\n`);
}

/** The running daemon's answer, or null when no daemon runs. */
async function fromDaemon(home, rotate) {
  let client;
  try {
    client = await connect(home, { timeout: 5000 });
  } catch (err) {
    if (err.code === 'E_NO_DAEMON') return null;
    throw err;
  }
  try {
    return (await client.request('token', { rotate })).token;
  } finally {
    client.close();
  }
}
